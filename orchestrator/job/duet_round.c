/*
 * A duet round's sides (duet_round.h). A side that was stopped while
 * the other ran measured the stop, not the code: its round is no
 * measurement. The agent sees a stop of the benchmark's own process by
 * a signal; a stop of a process it started shows as wall time spent
 * neither running nor waiting to run, compared with the patch's (which
 * ran the same kind of work at the same time). Only the base's share
 * is held against the other's: the patch's own waiting is what the
 * patch measures (a patch that sleeps more is slower), and a rule that
 * dropped those rounds would hide that regression.
 */
#include "job/duet_round.h"

#include <stdio.h>
#include <string.h>

#include "benchfarm/json.h"

static double num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : 0;
}

void bf_duet_times_of(struct bf_duet_times *out, const json_t *fin)
{
	const json_t *cpu = json_object_get(fin, "cpu");

	out->wall_s = num(fin, "wall_s");
	out->cpu_s = num(fin, "user_s") + num(fin, "sys_s");
	out->run_delay_s = num(cpu, "run_delay_s");
	out->stops = (long)num(cpu, "stops");
}

double bf_duet_idle_share(const struct bf_duet_times *t)
{
	double idle;

	if (!(t->wall_s > 0))
		return 0;
	idle = (t->wall_s - t->cpu_s - t->run_delay_s) / t->wall_s;
	return idle < 0 ? 0 : idle > 1 ? 1 : idle;
}

int bf_duet_stopped_side(const struct bf_duet_times t[2], char *msg,
                         size_t msglen)
{
	double idle[2] = { bf_duet_idle_share(&t[0]),
		           bf_duet_idle_share(&t[1]) };

	for (int i = 0; i < 2; i++)
		if (t[i].stops > 0) {
			snprintf(
			        msg, msglen,
			        "its process was stopped by a signal while "
			        "it ran (the agent saw it stopped or continued "
			        "%ld time%s)",
			        t[i].stops, t[i].stops == 1 ? "" : "s");
			return i;
		}
	if (idle[0] > idle[1] + BF_DUET_STOP_MARGIN) {
		snprintf(msg, msglen,
		         "it spent %.0f%% of its %.3f s neither running nor "
		         "waiting for a CPU (%.3f s on one, %.3f s waiting), "
		         "against %.0f%% of the patch's %.3f s: something "
		         "stopped it",
		         idle[0] * 100, t[0].wall_s, t[0].cpu_s,
		         t[0].run_delay_s, idle[1] * 100, t[1].wall_s);
		return 0;
	}
	return -1;
}

/* why into the first empty one of buf. */
static void keep_why(char *buf, size_t len, const char *why)
{
	if (!buf[0] && why && (size_t)snprintf(buf, len, "%s", why) >= len)
		buf[len - 1] = '\0';
}

void bf_duet_tally_add(struct bf_duet_tally *t, const json_t *isolation)
{
	static const char old[] = "the agent does not isolate duet runs (an "
	                          "older agent)";

	t->rounds++;
	if (json_is_true(json_object_get(isolation, "processes")))
		t->processes++;
	else
		keep_why(t->processes_why, sizeof(t->processes_why),
		         isolation ? bf_json_str_or(isolation, "processes_why",
		                                    "?")
		                   : old);
	if (json_is_true(json_object_get(isolation, "cores")))
		t->cores++;
	else
		keep_why(t->cores_why, sizeof(t->cores_why),
		         isolation ? bf_json_str_or(isolation, "cores_why", "?")
		                   : old);
}

json_t *bf_duet_tally_json(const struct bf_duet_tally *t, const char *mode)
{
	bool procs = t->rounds && t->processes == t->rounds;
	bool cores = t->rounds && t->cores == t->rounds;
	char why[600];

	why[0] = '\0';
	if (!procs)
		snprintf(why, sizeof(why), "processes: %s",
		         t->processes_why[0] ? t->processes_why
		                             : "no round was answered");
	if (!cores)
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
		         "%scores: %s", procs ? "" : "; ",
		         t->cores_why[0] ? t->cores_why
		                         : "no round was answered");
	return json_pack("{s:s, s:i, s:i, s:i, s:b, s:o, s:i}", "mode", mode,
	                 "rounds", t->rounds, "processes_isolated",
	                 t->processes, "cores_isolated", t->cores, "isolated",
	                 procs && cores, "not_isolated",
	                 procs && cores ? json_null() : json_string(why),
	                 "stopped_rounds", t->stopped);
}
