#include "probe/probe_android.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "benchfarm/alloc.h"
#include "benchfarm/buf.h"
#include "benchfarm/err.h"
#include "benchfarm/parse.h"
#include "probe/devfs.h"

/* dumpsys output is a few KiB; getprop a few tens. */
#define DUMPSYS_MAX ((size_t)4 * 1024 * 1024)

/* One line of text, without its line end ("\n" or "\r\n"). */
struct line {
	const char *s;
	size_t len;
};

/* The next line at *pos in text, or false at the end. */
static bool next_line(struct line *l, const char *text, size_t *pos)
{
	const char *s = text + *pos, *nl;

	if (!*s)
		return false;
	nl = strchr(s, '\n');
	l->s = s;
	l->len = nl ? (size_t)(nl - s) : strlen(s);
	*pos += l->len + (nl != NULL);
	if (l->len && s[l->len - 1] == '\r')
		l->len--;
	return true;
}

/* Runs `argv` on the device into out (capped). */
static int run(struct bf_buf *out, struct bf_devfs *fs, const char *const *argv,
               struct bf_err *err)
{
	bf_buf_init(out, DUMPSYS_MAX);
	return bf_devfs_command(fs, argv, out, err);
}

/* BF_EINVAL quoting the line, non-printable bytes shown as '?'. */
static int bad_line(struct bf_err *err, const char *cmd, const char *why,
                    const struct line *l)
{
	char quoted[81];
	size_t n = l->len < sizeof(quoted) - 1 ? l->len : sizeof(quoted) - 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)l->s[i];

		quoted[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	quoted[n] = '\0';
	return bf_err_set(err, BF_EINVAL, "'%s': %s: '%s'", cmd, why, quoted);
}

/* The battery fields dumpsys prints, before interpretation. */
struct batt_raw {
	int level, scale, status, temp; /* INT_MIN when absent */
	int present, powered; /* -1 absent, 0, 1 */
};

static int parse_bool(int *out, const char *v)
{
	if (!strcmp(v, "true"))
		*out = 1;
	else if (!strcmp(v, "false"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* One "  key: value" line of the battery section into r. */
static int batt_field(struct batt_raw *r, const char *key, const char *v)
{
	static const char *const powered[] = { "AC powered", "USB powered",
		                               "Wireless powered",
		                               "Dock powered" };
	int b;

	for (size_t i = 0; i < BF_ARRAY_SIZE(powered); i++) {
		if (strcmp(key, powered[i]))
			continue;
		if (parse_bool(&b, v))
			return -1;
		r->powered = r->powered == 1 || b;
		return 0;
	}
	if (!strcmp(key, "present"))
		return parse_bool(&r->present, v);
	if (!strcmp(key, "level"))
		return bf_parse_int_range(&r->level, v, 0, 10000, NULL);
	if (!strcmp(key, "scale"))
		return bf_parse_int_range(&r->scale, v, 1, 10000, NULL);
	if (!strcmp(key, "status"))
		return bf_parse_int_range(&r->status, v, 1, 5, NULL);
	if (!strcmp(key, "temperature"))
		return bf_parse_int_range(&r->temp, v, -2730, 2730, NULL);
	return 0; /* health, voltage, technology, vendor lines */
}

static int batt_parse(struct batt_raw *r, const char *text, struct bf_err *err)
{
	static const char cmd[] = "dumpsys battery";
	char key[64], val[128];
	struct line l;
	size_t pos = 0;
	bool header = false;

	while (next_line(&l, text, &pos)) {
		const char *colon = memchr(l.s, ':', l.len);
		size_t klen, vlen;

		if (!header) {
			if (!l.len)
				continue;
			if (l.len != 30 ||
			    memcmp(l.s, "Current Battery Service state:", 30))
				return bad_line(err, cmd,
				                "not a battery service dump",
				                &l);
			header = true;
			continue;
		}
		if (!l.len)
			break;
		if (l.s[0] == ' ' && l.len > 2 && l.s[2] == '(')
			continue; /* "(UPDATES STOPPED -- ...)" */
		if (l.len < 3 || memcmp(l.s, "  ", 2) || !colon)
			return bad_line(err, cmd, "expected '  key: value'",
			                &l);
		klen = (size_t)(colon - l.s) - 2;
		vlen = l.len - (size_t)(colon - l.s) - 1;
		vlen -= vlen && colon[1] == ' ';
		if (klen >= sizeof(key) || vlen >= sizeof(val))
			return bad_line(err, cmd, "line too long", &l);
		memcpy(key, l.s + 2, klen);
		key[klen] = '\0';
		memcpy(val, colon + 1 + (colon[1] == ' '), vlen);
		val[vlen] = '\0';
		if (batt_field(r, key, val))
			return bad_line(err, cmd, "bad value", &l);
	}
	if (!header)
		return bf_err_set(err, BF_EINVAL, "'%s': empty output", cmd);
	if (r->level == INT_MIN || r->status == INT_MIN)
		return bf_err_set(err, BF_EINVAL,
		                  "'%s': no '%s' line (output cut short?)", cmd,
		                  r->level == INT_MIN ? "level" : "status");
	if (r->level > r->scale)
		return bf_err_set(err, BF_EINVAL,
		                  "'%s': level %d is above scale %d", cmd,
		                  r->level, r->scale);
	return 0;
}

int bf_android_battery(struct bf_android_battery *out, struct bf_devfs *fs,
                       struct bf_err *err)
{
	static const char *const argv[] = { "dumpsys", "battery", NULL };
	static const char *const names[] = { "Unknown",      "Unknown",
		                             "Charging",     "Discharging",
		                             "Not charging", "Full" };
	struct batt_raw r = { INT_MIN, 100, INT_MIN, INT_MIN, -1, -1 };
	struct bf_android_battery b;
	struct bf_buf text;
	int ret = run(&text, fs, argv, err);

	if (!ret)
		ret = batt_parse(&r, text.buf, err);
	bf_buf_release(&text);
	if (ret)
		return ret;
	memset(&b, 0, sizeof(b));
	b.capacity = r.level * 100 / r.scale;
	b.present = r.present != 0;
	b.charging = r.status == 2 || (r.status == 5 && r.powered == 1);
	bf_strlcpy(b.status, names[r.status], sizeof(b.status));
	b.temp_c = r.temp == INT_MIN ? NAN : r.temp / 10.0;
	*out = b;
	return 0;
}

int bf_android_thermal_status(int *status_out, struct bf_devfs *fs,
                              struct bf_err *err)
{
	static const char *const argv[] = { "dumpsys", "thermalservice", NULL };
	static const char cmd[] = "dumpsys thermalservice";
	static const char key[] = "Thermal Status: ";
	struct bf_buf text;
	struct line l;
	size_t pos = 0;
	int ret = run(&text, fs, argv, err), status = -1;

	while (!ret && status < 0 && next_line(&l, text.buf, &pos)) {
		char num[16];
		size_t n = l.len - (sizeof(key) - 1);

		if (l.len < sizeof(key) || memcmp(l.s, key, sizeof(key) - 1))
			continue;
		if (n >= sizeof(num))
			n = sizeof(num) - 1;
		memcpy(num, l.s + sizeof(key) - 1, n);
		num[n] = '\0';
		if (bf_parse_int_range(&status, num, 0, 6, NULL))
			ret = bad_line(err, cmd, "status not in 0..6", &l);
	}
	if (!ret && status < 0)
		ret = text.len ? bf_err_set(err, BF_EINVAL,
		                            "'%s': no 'Thermal Status' line "
		                            "(not a thermal service dump, or "
		                            "output cut short)",
		                            cmd)
		               : bf_err_set(err, BF_ENOTFOUND,
		                            "'%s' printed nothing (no thermal "
		                            "service before Android 10)",
		                            cmd);
	bf_buf_release(&text);
	if (!ret)
		*status_out = status;
	return ret;
}

const char *bf_android_thermal_status_name(int status)
{
	static const char *const names[] = { "none",    "light",    "moderate",
		                             "severe",  "critical", "emergency",
		                             "shutdown" };

	return status >= 0 && status <= 6 ? names[status] : "unknown";
}

static const char *const props_kept[] = {
	"ro.build.fingerprint",
	"ro.build.id",
	"ro.build.type",
	"ro.build.tags",
	"ro.build.version.sdk",
	"ro.build.version.release",
	"ro.build.version.codename",
	"ro.build.version.security_patch",
	"ro.product.brand",
	"ro.product.device",
	"ro.product.model",
	"ro.product.manufacturer",
	"ro.product.name",
	"ro.product.cpu.abi",
	"ro.hardware",
	"ro.board.platform",
	"ro.soc.manufacturer",
	"ro.soc.model",
	"ro.debuggable",
	"ro.kernel.qemu",
	"ro.serialno",
};

static bool prop_kept(const char *key, size_t len)
{
	for (size_t i = 0; i < BF_ARRAY_SIZE(props_kept); i++)
		if (strlen(props_kept[i]) == len &&
		    !memcmp(props_kept[i], key, len))
			return true;
	return false;
}

/*
 * "[key]: [value]" into obj when key is kept. A value may span lines
 * (getprop prints embedded newlines as they are): *open then holds the
 * value so far, and the next lines continue it until one ends in ']'.
 */
static int prop_line(json_t *obj, struct bf_buf *open, bool *in_value,
                     const struct line *l, struct bf_err *err)
{
	static const char cmd[] = "getprop";
	const char *sep;
	size_t klen;

	if (*in_value) {
		bf_buf_addch(open, '\n');
		bf_buf_add(open, l->s, l->len);
	} else {
		sep = l->len > 6 && l->s[0] == '[' ? strstr(l->s, "]: [")
		                                   : NULL;
		if (!sep || sep >= l->s + l->len)
			return bad_line(err, cmd, "expected '[key]: [value]'",
			                l);
		klen = (size_t)(sep - l->s) - 1;
		bf_buf_reset(open);
		bf_buf_add(open, l->s + 1, klen);
		bf_buf_addch(open, '\0');
		bf_buf_add(open, sep + 4, l->len - klen - 5);
	}
	*in_value = !open->len || open->buf[open->len - 1] != ']';
	if (*in_value)
		return 0;
	klen = strlen(open->buf);
	if (prop_kept(open->buf, klen)) {
		json_t *v = json_stringn(open->buf + klen + 1,
		                         open->len - klen - 2);

		if (!v)
			return bad_line(err, cmd, "value is not UTF-8", l);
		json_object_set_new(obj, open->buf, v);
	}
	return 0;
}

int bf_android_props(json_t **out, struct bf_devfs *fs, struct bf_err *err)
{
	static const char *const argv[] = { "getprop", NULL };
	struct bf_buf text, open;
	json_t *obj = json_object();
	bool in_value = false;
	struct line l;
	size_t pos = 0;
	int ret = run(&text, fs, argv, err);

	bf_buf_init(&open, 64 * 1024);
	while (!ret && next_line(&l, text.buf, &pos))
		if (l.len || in_value)
			ret = prop_line(obj, &open, &in_value, &l, err);
	if (!ret &&
	    (in_value || !json_object_get(obj, "ro.build.fingerprint") ||
	     !json_object_get(obj, "ro.build.version.sdk")))
		ret = bf_err_set(err, BF_EINVAL,
		                 "'getprop': %s (output cut short?)",
		                 in_value ? "last value has no closing ']'"
		                          : "no [ro.build.fingerprint] or "
		                            "[ro.build.version.sdk]");
	bf_buf_release(&open);
	bf_buf_release(&text);
	if (ret) {
		json_decref(obj);
		return ret;
	}
	*out = obj;
	return 0;
}
