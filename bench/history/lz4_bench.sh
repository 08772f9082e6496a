#!/bin/sh
# One run of lz4's own benchmark (`lz4 -b1 -i1 FILE`: level 1, one
# second per measurement) in the lines format: its compression and
# decompression speeds in MB/s (higher is better). lz4 writes its
# progress to stderr with carriage returns; the last line holds both
# speeds: " 1#FILE : IN -> OUT (RATIO), C MB/s , D MB/s".
set -eu
in=$1
out=$(./lz4 -b1 -i1 "$in" 2>&1 | tr '\r' '\n' | grep 'MB/s ,' | tail -n 1)
echo "$out" | awk -F, '{
	c = $(NF - 1); d = $NF
	sub(/MB\/s.*/, "", c); sub(/MB\/s.*/, "", d)
	gsub(/[^0-9.]/, "", c); gsub(/[^0-9.]/, "", d)
	if (c == "" || d == "") exit 1
	printf "compress %s MB/s\ndecompress %s MB/s\n", c, d
}'
