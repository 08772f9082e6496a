#!/bin/sh
# The store's location as a user gives it (--db, BENCHFARM_DB): a URI
# scheme that is neither postgresql:// nor postgres:// is refused, naming
# where it came from, before anything is created (it used to become a
# directory named after the scheme); a PostgreSQL location whose server
# is not there ends as an infrastructure failure (exit 3) naming the
# store without its password; a file path still makes an SQLite store.
. "$(dirname "$0")/lib.sh"

W="$T/cwd"
mkdir -p "$W"
cd "$W" || exit 1

expect_exit 3 "--db mysql://... is refused" \
	"$BF" --db 'mysql://alice:s3cret@db/bf' alert list
grep_file "the message names --db and the scheme" \
	"--db: database location 'mysql:...' has a URI scheme" "$ERR"
if grep -q s3cret "$ERR" "$OUT"; then
	t_fail "the refused location's password is not shown"
else
	t_ok "the refused location's password is not shown"
fi
if [ -e "$W/mysql:" ]; then
	t_fail "no directory named after the scheme is created"
else
	t_ok "no directory named after the scheme is created"
fi

BENCHFARM_DB='postgresql:bf' expect_exit 3 "BENCHFARM_DB postgresql:bf is refused" \
	"$BF" alert list
grep_file "the message names BENCHFARM_DB" "^.*BENCHFARM_DB: database location" "$ERR"
if [ -e "$W/postgresql:bf" ]; then
	t_fail "nothing created for postgresql:bf"
else
	t_ok "nothing created for postgresql:bf"
fi

expect_exit 3 "a PostgreSQL server that is not there is exit 3" \
	"$BF" --db "host=$T/no-server dbname=bf user=u password='s3 cret'" \
	alert list
grep_file "the message names the store with password=***" \
	"cannot connect to the store 'host=$T/no-server dbname=bf user=u password=\*\*\*'" \
	"$ERR"
if grep -q "cret" "$ERR" "$OUT"; then
	t_fail "the password is not shown"
else
	t_ok "the password is not shown"
fi
expect_exit 3 "a postgresql:// URI without a server is exit 3" \
	"$BF" --db "postgresql://u:s3cret@/bf?host=$T/no-server" alert list
grep_file "the URI is shown as u:***@" "postgresql://u:\*\*\*@/bf" "$ERR"
if grep -q "s3cret" "$ERR" "$OUT"; then
	t_fail "the URI's password is not shown"
else
	t_ok "the URI's password is not shown"
fi

expect_exit 0 "a relative path is an SQLite store" \
	"$BF" --db ./sub/lab.db alert list
check "the SQLite file was created" test -f "$W/sub/lab.db"

# libpq quotes the part of a location it cannot parse, which can be a
# password: a malformed percent escape in a URI's password, a password
# with a space. Neither reaches a message; nor does a password libpq
# repeats from a location that parses.
for loc in 'postgresql://u:se%zzcret@/x?host=/nonexistent' \
	'postgresql:///x?host=/nonexistent&password=se%zzcret' \
	'password=se zzcret host=/nonexistent'; do
	expect_exit 3 "a malformed location ends as exit 3 ($(printf %.14s "$loc")...)" \
		"$BF" --db "$loc" device list
	if grep -q 'zzcret' "$ERR" "$OUT"; then
		t_fail "no part of its password is shown"
	else
		t_ok "no part of its password is shown"
	fi
done
