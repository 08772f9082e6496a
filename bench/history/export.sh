#!/bin/sh
# Writes one project's measured history as a corpus file
# (tests/data/histories/README.md): every first-parent commit of RANGE
# in REPO, oldest first, with every repeat of each series that the
# store DB holds for it (complete `run` records; a commit measured twice
# keeps its newest run). xxhsum renamed XXH3_64bits to XXH3_64b during
# the measured range (the same -b5 benchmark): the old name is mapped to
# the new. Usage: export.sh DB REPO RANGE > FILE.hist
set -eu
db=$1 repo=$2 range=$3
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
git -C "$repo" rev-list --first-parent --reverse "$range" >"$tmp"
sqlite3 -separator ' ' "$db" "
select s.suite || '/' || s.benchmark, s.unit, s.commit_id, s.value
from samples s join runs r on r.id = s.run_id
where r.kind = 'run' and r.status = 'complete' and r.id = (
  select max(r2.id) from runs r2
  where r2.kind = 'run' and r2.status = 'complete'
    and r2.patch_commit = s.commit_id)
order by s.suite, s.benchmark, s.repeat_idx, s.iter_idx" |
	awk -v list="$tmp" '
	BEGIN { while ((getline c < list) > 0) order[++n] = c }
	{
		key = $1; sub(/\/XXH3_64bits$/, "/XXH3_64b", key); if (!(key in unit)) { names[++ns] = key; unit[key] = $2 }
		v[key, $3] = v[key, $3] " " $4
	}
	END {
		for (i = 1; i <= ns; i++) {
			k = names[i]; head = 0
			for (j = 1; j <= n; j++) {
				if (!((k, order[j]) in v))
					continue
				if (!head++)
					print "series " k " " unit[k]
				print "c " order[j] v[k, order[j]]
			}
		}
	}'
