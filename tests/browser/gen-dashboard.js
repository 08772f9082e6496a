#!/usr/bin/env node
/*
 * A `benchfarm dashboard` document (kind "dashboard") of synthetic
 * history, for the browser test and the page-size benchmark:
 *
 *   node gen-dashboard.js NSERIES NCOMMITS [--hostile] > dashboard.json
 *
 * Deterministic (a fixed linear congruential generator). Each series has
 * a step at 60% of the commits and one alert per state (new, ack,
 * ignored with a bisected culprit) spread over the series; every tenth
 * commit is unmeasured (null). --hostile gives names that are markup.
 */
"use strict";
const [ns, nc] = process.argv.slice(2, 4).map(Number);
const hostile = process.argv.includes("--hostile");
let seed = 42;
function rnd() {
	seed = (seed * 1103515245 + 12345) % 2147483648;
	return seed / 2147483648;
}
function hex(i) {
	let s = "";
	for (let k = 0; k < 5; k++) s += ((i * 2654435761 + k * 40503) >>> 0).toString(16).padStart(8, "0");
	return s.slice(0, 40);
}
const commits = [];
for (let i = 0; i < nc; i++)
	commits.push({ id: hex(i + 1), time: 1767225600 + i * 3600,
		subject: hostile && i % 7 === 3 ? "</script><script>window.__pwned=1</script> fix \"x\"" : "commit " + i + ": tune the parser" });
const series = [], alerts = [];
const states = ["new", "ack", "ignored"];
for (let s = 0; s < ns; s++) {
	const base = 1000 + 97 * s, step = Math.floor(nc * 0.6);
	const values = [], spread = [];
	for (let i = 0; i < nc; i++) {
		if (i % 10 === 9) { values.push(null); spread.push(0, 0); continue; }
		const v = base * (i >= step ? 1.08 : 1) * (1 + (rnd() - 0.5) * 0.02);
		values.push(Number(v.toPrecision(7)));
		spread.push(Math.round(rnd() * 15), Math.round(rnd() * 15));
	}
	const name = hostile && s === 0 ? "<img src=x onerror=window.__pwned=2>" :
		hostile && s === 1 ? "ünïcødé ☃ \u2028 " + "長".repeat(200) : "BM_case/" + s;
	const sr = { device_class: s % 4 === 3 ? "arm-pool" : "x86-pool", suite: "suite" + (s % 3),
		benchmark: name, metric: s % 2 ? "cpu_time" : "real_time", unit: "ns", better: "lower",
		values: values, spread: spread };
	series.push(sr);
	const st = states[s % 3];
	alerts.push({ id: s + 1, device_class: sr.device_class, suite: sr.suite, benchmark: sr.benchmark,
		metric: sr.metric, commit_lo: commits[step - 1].id, commit_hi: commits[step].id,
		direction: "regressed", size: 0.08, status: st, culprit: st === "ignored" ? commits[step].id : null });
}
process.stdout.write(JSON.stringify({ benchfarm: "0.1.0", kind: "dashboard", generated: "2026-03-02T00:00:00Z",
	branch: "main", commit_url: "https://git.example.com/project/commit/{commit}",
	device_classes: ["x86-pool", "arm-pool"], commits, series, alerts }) + "\n");
