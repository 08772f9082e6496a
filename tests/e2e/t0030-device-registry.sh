#!/bin/sh
# The device registry over real OpenSSH sshd "devices" on 127.0.0.1 that
# run the real benchfarm-agent (ci/sshd.sh): add with --accept-host-key,
# list, check --all in parallel, a device that fails its checks (fixture
# sysroot), host keys pinned in the registry (a stale known_hosts line,
# another host with no known_hosts, a reinstalled device refused on
# both and rekeyed on one), an unreachable device, a private key
# with loose permissions, drain/undrain/rm, and no secret in any output
# or in the store.
. "$(dirname "$0")/lib.sh"

sshd_setup
LOG="$T/all-output"

# run CODE "what" ARGS...: expect_exit on benchfarm, keeping every output
# for the secrets check at the end.
run() {
	want=$1
	what=$2
	shift 2
	expect_exit "$want" "$what" "$BF" "$@"
	cat "$OUT" "$ERR" >>"$LOG"
}

# The key's private part: its base64 lines after the public header.
sed -n '3,$p' "$KEY" | grep -v -- '-----' >"$T/secret-lines"

for d in d1 d2 d3 d4; do
	sshd_start "$d"
	sshd_add "$d" "$port" "add $d with --accept-host-key" \
		--labels pool1,lab --agent "$BFA" --workdir "$T/work/$d"
	cat "$OUT" "$ERR" >>"$LOG"
	grep_file "$d: the SHA256 fingerprint and the file are printed" \
		"^$d: host key SHA256:[A-Za-z0-9+/]* recorded in $T/known_hosts" \
		"$OUT"
done
fp_d2=$(ssh-keygen -l -E sha256 -f "$S/d2/host_key.pub" | cut -d' ' -f2)
fp_d3=$(ssh-keygen -l -E sha256 -f "$S/d3/host_key.pub" | cut -d' ' -f2)

run 0 "device list" device list
grep_file "list has the header" \
	"^NAME  *TYPE  *HOST:PORT  *LABELS  *STATE  *HEALTH  *LAST-CHECK  *REASON" \
	"$OUT"
grep_file "new devices are unknown, never checked" \
	"^d3  *linux  *127.0.0.1:$P_d3  *pool1,lab  *idle  *unknown  *never" \
	"$OUT"
run 0 "device show --json" device show d3 --json
jq_check "show has the pinned fingerprint, workdir and absolute key" \
	".host_key_fp == \"$fp_d3\" and .workdir == \"$T/work/d3\" and .key_path == \"$KEY\" and .labels == [\"pool1\",\"lab\"]" \
	"$OUT"

# Four agents share this machine's cores: the throttle and load checks
# only warn here, the others keep their default thresholds.
R="$T/repo"
mkdir -p "$R"
cat >"$R/bf.yaml" <<'X'
version: 1
project: {repo: .}
benchmarks:
  - {name: b, command: ["true"], format: lines}
checks: {suppress: [throttle, load]}
X
start=$(date +%s)
run 0 "device check --all: all four good" device check --all -c "$R/bf.yaml"
end=$(date +%s)
grep_file "check table header" "^NAME  *HEALTH  *CHECKS  *REASON" "$OUT"
n=$(grep -c '^d[1-4]  *good  *0 fail' "$OUT")
[ "$n" = 4 ] && t_ok "four rows say good, 0 fail" || t_fail "four good rows ($n)"
[ $((end - start)) -lt 20 ] && t_ok "checked in parallel quickly" ||
	t_fail "device check --all took $((end - start)) s"
run 0 "device list --json" device list --json
jq_check "every device good with a last check" \
	'length == 4 and all(.[]; .health == "good" and .last_check_at > 0 and .health_reason == null)' \
	"$OUT"
n=$(sqlite3 "$BENCHFARM_DB" "select count(*) from checks where device='d1' and run_id is null")
[ "$n" -ge 5 ] && t_ok "d1's checks are stored without a run" ||
	t_fail "d1's checks stored ($n)"
run 0 "device show lists the latest checks" device show d1
grep_file "show has a checks section" "^latest checks:" "$OUT"
grep_file "show lists the cores check" "^  pass  cores" "$OUT"
run 0 "device check NAME --json" device check d1 -c "$R/bf.yaml" --json
jq_check "check --json has the agent's info and checks" \
	'.[0].name == "d1" and .[0].result == "good" and .[0].fit == true and (.[0].checks | length) >= 5 and (.[0].info.hostname | type) == "string"' \
	"$OUT"

# A device that fails its checks: the agent reads a 95 C fixture.
cat >"$T/hot-agent" <<X
#!/bin/sh
exec "$BFA" "\$1" --root "$BF_SRC/tests/fixtures/sysroot/hot-95c"
X
chmod 755 "$T/hot-agent"
run 0 "add a device whose host key is already known" device add hot \
	--host 127.0.0.1 --port "$P_d4" --user "$ME" --key "$KEY" \
	--agent "$T/hot-agent"
run 3 "a hot device is bad (exit 3)" device check hot
grep_file "the table says bad and names thermal" \
	"^hot  *bad  *1 fail.*not fit to measure: thermal" "$OUT"
run 0 "device list --json after the hot check" device list --json
jq_check "hot is bad with a thermal reason" \
	'.[] | select(.name == "hot") | .health == "bad" and (.health_reason | test("thermal"))' \
	"$OUT"

# A stale line in this host's known_hosts (d2's key for d3's port) does
# not matter to a registered device: the registry's pin decides.
grep -v "^\[127.0.0.1\]:$P_d3 " "$BENCHFARM_KNOWN_HOSTS" >"$T/kh"
echo "[127.0.0.1]:$P_d3 $(cut -d' ' -f1,2 "$S/d2/host_key.pub")" >>"$T/kh"
cp "$T/kh" "$BENCHFARM_KNOWN_HOSTS"
run 0 "a pinned device checks good whatever known_hosts says" device check \
	d3 -c "$R/bf.yaml"
# Adding another device at that address with --accept-host-key must not
# undo the pin behind d3's refusal: only rekey replaces a pinned key.
cp "$BENCHFARM_KNOWN_HOSTS" "$T/kh-before"
run 2 "add at a pinned address with another key is refused" device add \
	d3bis --host 127.0.0.1 --port "$P_d3" --user "$ME" --key "$KEY" \
	--agent "$BFA" --accept-host-key
grep_file "it says rekey is the way" "already has another host key.*device rekey" \
	"$ERR"
check "known_hosts is unchanged" cmp "$BENCHFARM_KNOWN_HOSTS" "$T/kh-before"
# Nor under another name for the same address and port: keys are pinned
# by the address a name resolves to as well.
for alias in localhost 127.1; do
	run 2 "add as $alias:$P_d3 with --accept-host-key is refused" device \
		add "d3-$alias" --host "$alias" --port "$P_d3" --user "$ME" \
		--key "$KEY" --agent "$BFA" --accept-host-key
	grep_file "it names the pinned address" \
		"\[127.0.0.1\]:$P_d3 already has another host key.*device rekey" "$ERR"
	check "known_hosts is still unchanged" cmp "$BENCHFARM_KNOWN_HOSTS" \
		"$T/kh-before"
done
# With the same key another name is accepted, pinned by name and
# address, and connects.
run 0 "d1 as localhost with --accept-host-key" device add d1-local \
	--host localhost --port "$P_d1" --user "$ME" --key "$KEY" \
	--agent "$BFA" --workdir "$T/work/d1" --accept-host-key
grep_file "its key is pinned for the name and the address" \
	"^\[localhost\]:$P_d1,\[127.0.0.1\]:$P_d1 " "$BENCHFARM_KNOWN_HOSTS"
grep_file "d1's own pin stays" "^\[127.0.0.1\]:$P_d1 " "$BENCHFARM_KNOWN_HOSTS"
run 0 "d1-local checks good" device check d1-local -c "$R/bf.yaml"
run 0 "remove d1-local" device rm d1-local
cp "$BENCHFARM_KNOWN_HOSTS" "$T/kh-before"
# A key pinned by name only (as before addresses were pinned) does not
# outvote the key pinned for the address it resolves to.
echo "[localhost]:$P_d3 $(cut -d' ' -f1,2 "$S/d3/host_key.pub")" \
	>>"$BENCHFARM_KNOWN_HOSTS"
run 0 "add d3-legacy as localhost without --accept-host-key" device add \
	d3-legacy --host localhost --port "$P_d3" --user "$ME" --key "$KEY" \
	--agent "$BFA"
run 3 "its check is refused by the address's pin" device check d3-legacy \
	-c "$R/bf.yaml"
grep_file "the reason names the name and the address" \
	"^d3-legacy  *bad .*(localhost at \[127.0.0.1\]:$P_d3): HOST KEY CHANGED" \
	"$OUT"
run 0 "remove d3-legacy" device rm d3-legacy
cp "$T/kh-before" "$BENCHFARM_KNOWN_HOSTS"

# Another host sharing the registry: another HOME, with the default
# known_hosts there, which it has never written. d3 was added here.
HB="$T/home-b"
mkdir -p "$HB"
run_b() {
	want=$1
	what=$2
	shift 2
	expect_exit "$want" "$what" env -u BENCHFARM_KNOWN_HOSTS HOME="$HB" \
		"$BF" "$@"
	cat "$OUT" "$ERR" >>"$LOG"
}
run_b 0 "host B checks d3 with no known_hosts of its own" device check d3 \
	-c "$R/bf.yaml"
check "host B wrote no known_hosts" test ! -e "$HB/.local/share/benchfarm/known_hosts"
# d3 is reinstalled: its sshd serves a new host key (SIGHUP: sshd
# re-executes itself and reads its keys again, on the same port).
rm -f "$S/d3/host_key" "$S/d3/host_key.pub"
ssh-keygen -q -t ed25519 -N '' -f "$S/d3/host_key"
fp_new=$(ssh-keygen -l -E sha256 -f "$S/d3/host_key.pub" | cut -d' ' -f2)
kill -HUP "$(cat "$S/d3/sshd.pid")"
served_new() {
	ssh-keyscan -T 2 -t ed25519 -p "$P_d3" 127.0.0.1 2>/dev/null |
		ssh-keygen -l -E sha256 -f - 2>/dev/null | grep -qF "$fp_new"
}
_i=0
until served_new || [ $_i -gt 100 ]; do
	_i=$((_i + 1))
	sleep 0.1
done
check "d3's sshd serves its new key" served_new
run 3 "the changed key is refused on host A (exit 3)" device check d3
grep_file "A's reason says the pinned key changed, names both and rekey" \
	"^d3  *bad .*HOST KEY CHANGED: pinned $fp_d3, now $fp_new.*'benchfarm device rekey d3'" \
	"$OUT"
run_b 3 "and on host B (exit 3)" device check d3
grep_file "B's reason is the same" \
	"^d3  *bad .*HOST KEY CHANGED: pinned $fp_d3, now $fp_new.*'benchfarm device rekey d3'" \
	"$OUT"
# Host B has no known_hosts line for d3's address: the registry's pin
# of it holds there too, under any other name or spelling of the
# address, and only rekey replaces it.
for alias in 127.0.0.1 localhost ::ffff:127.0.0.1; do
	run_b 2 "host B cannot pin the new key at $alias:$P_d3 as another device" \
		device add d3-b --host "$alias" --port "$P_d3" --user "$ME" \
		--key "$KEY" --agent "$BFA" --accept-host-key
	grep_file "it names the registry's pin of d3 and rekey" \
		"127.0.0.1:$P_d3 is pinned in the registry to another host key, $fp_d3, by device 'd3'.*device rekey d3" \
		"$ERR"
done
run_b 2 "so d3-b is not registered" device show d3-b
check "host B still wrote no known_hosts" \
	test ! -e "$HB/.local/share/benchfarm/known_hosts"
run_b 0 "device rekey on host B accepts the new key" device rekey d3
grep_file "rekey prints the new fingerprint" "^d3: host key $fp_new recorded" \
	"$OUT"
grep_file "rekey prints the registry's old pin" "^d3: pinned before: $fp_d3" \
	"$OUT"
run 0 "device show after rekey" device show d3 --json
jq_check "the new key is pinned, health unknown until checked" \
	".host_key_fp == \"$fp_new\" and .health == \"unknown\"" "$OUT"
run 0 "host A uses the new key (its known_hosts still has the old)" device \
	check d3 -c "$R/bf.yaml"
grep_file "A's known_hosts was not touched" "^\[127.0.0.1\]:$P_d3 .*$(cut -d' ' -f2 "$S/d2/host_key.pub")" \
	"$BENCHFARM_KNOWN_HOSTS"
run_b 0 "host B uses it too" device check d3 -c "$R/bf.yaml"
# Dispatch and artifact shipping check the pins too: a compare on the
# pool from a third host, with no known_hosts at all (B's now has d3's
# key from its rekey).
pool_repo "$T/pool-repo" <<'X'
echo "b 1 ns"
X
mkdir -p "$T/home-c"
expect_exit 0 "host C runs a compare on the pool" env -u BENCHFARM_KNOWN_HOSTS \
	HOME="$T/home-c" "$BF" compare -c "$T/pool-repo/bf.yaml" --base main \
	--patch main --json "$T/b.json"
cat "$OUT" "$ERR" >>"$LOG"
jq_check "its samples were measured on the devices" \
	'(.samples | length) == 4 and all(.samples[]; .device | test("^d[1-4]$"))' \
	"$T/b.json"
run 2 "rekey of an unknown device" device rekey nosuch
grep_file "rekey names the missing device" "nosuch" "$ERR"

# An unreachable device: its sshd is gone.
"$SSHD_SH" stop "$S" d4
start=$(date +%s)
run 3 "an unreachable device is bad (exit 3)" device check d4
end=$(date +%s)
[ $((end - start)) -lt 5 ] && t_ok "unreachable is found quickly" ||
	t_fail "unreachable took $((end - start)) s"
grep_file "the reason names the device" "^d4  *bad .*'d4'" "$OUT"
run 3 "check --all is 3 when any device is bad" device check --all \
	-c "$R/bf.yaml"
grep_file "d1 is still good" "^d1  *good" "$OUT"

# Broken agents on a reachable device: garbage, another protocol
# version, no agent at all. Each is one clear error naming its device.
printf '#!/bin/sh\necho "this is not json"\n' >"$T/garbage-agent"
printf '#!/bin/sh\necho %s\nsleep 5\n' \
	"'{\"type\":\"hello\",\"protocol\":99,\"agent\":\"9.9\"}'" \
	>"$T/v99-agent"
chmod 755 "$T/garbage-agent" "$T/v99-agent"
for g in garbage:"$T/garbage-agent" v99:"$T/v99-agent" \
	missing:"$T/no-such-agent"; do
	run 0 "add device ${g%%:*}" device add "${g%%:*}" --host 127.0.0.1 \
		--port "$P_d1" --user "$ME" --key "$KEY" --agent "${g#*:}"
done
start=$(date +%s)
run 3 "broken agents make their devices bad" device check garbage v99 \
	missing
end=$(date +%s)
[ $((end - start)) -lt 15 ] && t_ok "broken agents are found quickly" ||
	t_fail "broken agents took $((end - start)) s"
for g in garbage v99 missing; do
	grep_file "$g is bad and named" "^$g  *bad .*'$g'" "$OUT"
done
grep_file "the version mismatch names both versions" "^v99 .*99.*1" "$OUT"
for g in garbage v99 missing; do
	run 0 "rm $g" device rm "$g"
done

# A private key others can read is refused before anything is stored.
cp "$KEY" "$T/key644"
chmod 644 "$T/key644"
run 2 "a 0644 key is refused" device add loose --host 127.0.0.1 \
	--port "$P_d1" --key "$T/key644"
grep_file "the error names the file and its mode" \
	"key file '$T/key644' is accessible by group or others (mode 0644)" \
	"$ERR"
run 2 "show of the refused device fails" device show loose
run 2 "a bad name is refused" device add "a b" --host 127.0.0.1
run 2 "android needs --adb-serial" device add ph --host 127.0.0.1 \
	--type android

# Drain, undrain, rm.
run 0 "drain d1" device drain d1
grep_file "drain says who" "^d1: drained by " "$OUT"
run 0 "device list after drain" device list
grep_file "d1 is in maintenance, drained by someone" \
	"^d1 .* maintenance .*drained by " "$OUT"
run 3 "check --all skips the drained device" device check --all \
	-c "$R/bf.yaml"
grep_file "d1 is skipped" "^d1  *maintenance  *skipped" "$OUT"
run 0 "undrain d1" device undrain d1
run 0 "device list --json after undrain" device list --json
jq_check "d1 is unknown again" \
	'.[] | select(.name == "d1") | .health == "unknown" and .health_reason == null' \
	"$OUT"
sqlite3 "$BENCHFARM_DB" "insert into leases (device_id, holder, acquired_at, expires_at) select id, 'job-7', strftime('%s','now'), strftime('%s','now') + 600 from devices where name = 'd2'"
run 2 "rm refuses a leased device" device rm d2
grep_file "rm names the lease holder" "leased by 'job-7'" "$ERR"
run 0 "rm --force removes it" device rm d2 --force
run 0 "rm hot" device rm hot
run 0 "device list --json after rm" device list --json
jq_check "d2 and hot are gone" '[.[].name] == ["d1","d3","d4"]' "$OUT"
run 2 "rm of an unknown device" device rm d2

# A version-1 store (before workdir, suite, alert detail and culprit,
# the alerts key with the suite, the lease holder's host and pid, the
# leases' fencing tokens, the queue of waiting jobs, holder keys and
# alive_at, build identity and the machine of a device) is
# migrated on open: take this one back to version 1 by hand.
cp "$BENCHFARM_DB" "$T/old.db"
[ ! -f "$BENCHFARM_DB-wal" ] || cp "$BENCHFARM_DB-wal" "$T/old.db-wal"
sqlite3 "$T/old.db" "PRAGMA wal_checkpoint; ALTER TABLE devices DROP COLUMN workdir; ALTER TABLE samples DROP COLUMN suite; DROP INDEX alerts_step; ALTER TABLE alerts DROP COLUMN suite; ALTER TABLE alerts DROP COLUMN detail; ALTER TABLE alerts DROP COLUMN culprit; ALTER TABLE leases DROP COLUMN holder_key; ALTER TABLE leases DROP COLUMN alive_at; ALTER TABLE runs DROP COLUMN alive_at; ALTER TABLE runs DROP COLUMN build_id; ALTER TABLE runs DROP COLUMN base_build_id; ALTER TABLE runs DROP COLUMN measured_by; ALTER TABLE devices DROP COLUMN machine; ALTER TABLE leases DROP COLUMN host; ALTER TABLE leases DROP COLUMN pid; ALTER TABLE leases DROP COLUMN token; ALTER TABLE devices DROP COLUMN lease_gen; DROP TABLE waiters; PRAGMA user_version = 1" >/dev/null
run 0 "a version-1 store opens" --db "$T/old.db" device list --json
jq_check "its devices have no workdir" 'all(.[]; .workdir == null)' "$OUT"
v=$(sqlite3 "$T/old.db" "PRAGMA user_version")
[ "$v" = 12 ] && t_ok "migrated to schema 12" || t_fail "schema $v"
cols=$(sqlite3 "$T/old.db" "select group_concat(name) from pragma_table_info('leases')")
[ "$cols" = device_id,holder,acquired_at,expires_at,host,pid,token,holder_key,alive_at ] &&
	t_ok "leases record the holder's host, pid and key, the token and when it was alive" ||
	t_fail "leases columns: $cols"
cols=$(sqlite3 "$T/old.db" "select group_concat(name) from pragma_table_info('waiters')")
[ "$cols" = ticket,pool,holder,host,pid,since,expires_at,holder_key,alive_at ] &&
	t_ok "the queue of waiting jobs is there" || t_fail "waiters columns: $cols"
idx=$(sqlite3 "$T/old.db" "select group_concat(name) from sqlite_master where type = 'index' and tbl_name = 'alerts' and sql is not null")
[ "$idx" = alerts_status,alerts_step ] && t_ok "alerts keyed with their suite" ||
	t_fail "alerts indexes: $idx"
idx=$(sqlite3 "$T/old.db" "select group_concat(name) from sqlite_master where type = 'index' and tbl_name = 'samples' and sql is not null")
[ "$idx" = samples_run ] && t_ok "the unused history and series indexes are gone" ||
	t_fail "samples indexes: $idx"

# Secrets: the private key is in no output, the store or known_hosts.
if cat "$LOG" "$BENCHFARM_DB"* "$BENCHFARM_KNOWN_HOSTS" |
	grep -qF -f "$T/secret-lines"; then
	t_fail "the private key leaked"
else
	t_ok "the private key appears nowhere"
fi
