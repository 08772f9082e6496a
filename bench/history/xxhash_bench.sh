#!/bin/sh
# One run of xxHash's own benchmark (`xxhsum -bN -i1`, the default
# 100 KB buffer) for XXH32 (1), XXH64 (3), XXH3_64b (5) and XXH128 (9)
# in the lines format: each hash's speed in MB/s (higher is better).
# The last line of each: "NAME : 102400 -> N it/s (S MB/s)".
set -eu
for id in 1 3 5 9; do
	./xxhsum -b$id -i1 2>&1 | tr '\r' '\n' | grep 'MB/s)' | tail -n 1 |
		awk -F'[:(]' '{
			name = $1; gsub(/ +$/, "", name); gsub(/ /, "_", name)
			s = $NF; sub(/ *MB\/s.*/, "", s)
			if (name == "" || s == "") exit 1
			printf "%s %s MB/s\n", name, s
		}'
done
