#!/bin/sh
# Test fixture: real OpenSSH sshd "devices" on 127.0.0.1.
#   ci/sshd.sh start DIR NAME [FORCED_COMMAND]  start one; prints "PORT"
#   ci/sshd.sh stop DIR NAME                    stop it (by pid)
#   ci/sshd.sh client-key DIR                   make DIR/client_key[.pub]
# BF_SSHD_CONFIG, when set, holds sshd_config lines that come first and
# so win over the defaults below (sshd keeps the first value of a
# keyword), e.g. "LogLevel DEBUG1" or "MaxSessions 1".
# Each device gets DIR/NAME/ with its own host key, authorized_keys
# (DIR/client_key.pub), sshd_config, pid file and log, and listens on a
# port chosen free at start. Nothing outside DIR is touched; sshd runs
# as the current user with StrictModes off so test directories work.
# Its SFTP server starts in DIR/NAME/home (sftp-server -d), so a device
# registered with the default, relative work directory keeps its files
# there and not in the real user's home; commands still start in the
# real home, as sshd always does. Its commands get XDG_STATE_HOME
# DIR/NAME/state, so the agent's run journal of each device is
# DIR/NAME/state/benchfarm/agent-runs.jsonl, apart from the others'.
set -eu
cmd=$1
dir=$2

free_port() {
	# Ask the kernel for a free port: bind port 0, read it back.
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		awk 'BEGIN{srand(); print 20000 + int(rand() * 20000)}'
}

case "$cmd" in
client-key)
	[ -f "$dir/client_key" ] ||
		ssh-keygen -q -t ed25519 -N '' -C benchfarm-test -f "$dir/client_key"
	;;
start)
	name=$3
	forced=${4:-}
	d="$dir/$name"
	mkdir -p "$d" "$d/home"
	[ -f "$d/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
	cp "$dir/client_key.pub" "$d/authorized_keys"
	SSHD=$(command -v sshd || echo /usr/sbin/sshd)
	tries=0
	while :; do
		port=$(free_port)
		printf '%s\n' "${BF_SSHD_CONFIG:-}" >"$d/sshd_config"
		cat >>"$d/sshd_config" <<X
ListenAddress 127.0.0.1
Port $port
HostKey $d/host_key
AuthorizedKeysFile $d/authorized_keys
PidFile $d/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin yes
AllowTcpForwarding no
X11Forwarding no
Subsystem sftp internal-sftp -d $d/home
SetEnv XDG_STATE_HOME=$d/state
PrintMotd no
LogLevel ERROR
X
		if [ -n "$forced" ]; then
			echo "ForceCommand $forced" >>"$d/sshd_config"
		fi
		mkdir -p /run/sshd 2>/dev/null || true
		if "$SSHD" -f "$d/sshd_config" -E "$d/sshd.log"; then
			# sshd forks and writes its pid file once listening.
			n=0
			while [ ! -s "$d/sshd.pid" ] && [ $n -lt 100 ]; do
				n=$((n + 1))
				sleep 0.05
			done
			[ -s "$d/sshd.pid" ] && break
		fi
		tries=$((tries + 1))
		[ $tries -lt 5 ] || { cat "$d/sshd.log" >&2; exit 3; }
	done
	echo "$port" >"$d/port"
	echo "$port"
	;;
stop)
	d="$dir/$3"
	if [ -s "$d/sshd.pid" ]; then
		kill "$(cat "$d/sshd.pid")" 2>/dev/null || true
		rm -f "$d/sshd.pid"
	fi
	;;
*)
	echo "usage: ci/sshd.sh start|stop|client-key DIR [NAME]" >&2
	exit 2
	;;
esac
