#!/bin/sh
# A throwaway PostgreSQL 15 server for the tests.
#   ci/pg.sh start DIR   initdb into DIR/data, listen only on a Unix socket
#                        in DIR (listen_addresses=''), create the database
#                        benchfarm, and print its connection string
#                        (host=DIR dbname=benchfarm) on standard output
#   ci/pg.sh stop DIR    stop it (nothing to do when it is not running)
#   ci/pg.sh restart DIR stop it and start it again on the same data (every
#                        connection is cut, as by a server restart)
# Local connections are trusted, except for the role bf_pw, which must
# give its password (scram-sha-256), so that a test can check a wrong
# one. initdb refuses to run as root: as root the server runs as the
# user nobody (who then owns DIR), with a superuser role named after
# the calling user, so that libpq's default user name works.
# Exit 3 (infrastructure) when the PostgreSQL binaries are missing.
set -eu

PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
usage() {
	echo "usage: ci/pg.sh start|stop|restart DIR" >&2
	exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
case $dir in
/*) ;;
*) dir=$(pwd)/$dir ;;
esac

if [ ! -x "$PGBIN/initdb" ] || [ ! -x "$PGBIN/pg_ctl" ]; then
	echo "pg.sh: no PostgreSQL 15 in $PGBIN (install postgresql-15)" >&2
	exit 3
fi

# Run "$@" as the server's user.
as_server() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			--reset-env -- "$@"
	else
		"$@"
	fi
}

case $cmd in
start)
	mkdir -p "$dir"
	if [ -f "$dir/data/postmaster.pid" ]; then
		echo "pg.sh: a server is already running in $dir" >&2
		exit 1
	fi
	[ "$(id -u)" = 0 ] && chown nobody:nogroup "$dir"
	chmod 0755 "$dir"
	su_name=$(id -un)
	as_server "$PGBIN/initdb" -D "$dir/data" -U "$su_name" \
		--auth-local=trust --auth-host=reject -E UTF8 --locale=C.UTF-8 \
		>"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		exit 1
	}
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		echo "fsync = off"
		echo "max_connections = 100"
	} >>"$dir/data/postgresql.conf"
	hba=$dir/data/pg_hba.conf
	{
		echo "local all bf_pw scram-sha-256"
		echo "local all all trust"
	} >"$hba"
	as_server "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-s start >&2 || {
		cat "$dir/server.log" >&2
		exit 1
	}
	"$PGBIN/createdb" -h "$dir" -U "$su_name" benchfarm
	echo "host=$dir dbname=benchfarm"
	;;
stop)
	[ -f "$dir/data/postmaster.pid" ] || exit 0
	as_server "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w -s stop >&2
	;;
restart)
	as_server "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
		-m fast -w -s restart >&2
	;;
*)
	usage
	;;
esac
