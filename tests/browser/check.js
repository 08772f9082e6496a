#!/usr/bin/env node
/*
 * Open benchfarm's HTML reports in headless Chromium (Debian's, driven by
 * playwright-core) from file:// with every network request refused, and
 * check them against the result JSON they were made from. Prints one TAP
 * line per check ("ok" / "not ok"), as the e2e scripts do.
 *
 *   node check.js --modules DIR --chromium PATH --shots DIR \
 *       --benchfarm PROGRAM PAGE.html=RESULT.json[=hostile|=bench] ...
 *
 * --modules: the node_modules holding playwright-core (installed from
 * package-lock.json by the caller). Screenshots go to --shots. A
 * comparison's verdict must read as the heading of PROGRAM's markdown
 * report of the same result.
 */
"use strict";
const path = require("path");
const fs = require("fs");

const args = process.argv.slice(2);
function opt(name) {
	const i = args.indexOf(name);
	if (i < 0) throw new Error("missing " + name);
	const v = args[i + 1];
	args.splice(i, 2);
	return v;
}
const modules = opt("--modules");
const chromium = opt("--chromium");
const shots = opt("--shots");
const benchfarm = opt("--benchfarm");
const { chromium: pw } = require(path.resolve(modules, "playwright-core"));

let n = 0, failed = 0;
function ok(cond, what, diag) {
	n++;
	if (cond) {
		console.log("ok " + n + " - " + what);
	} else {
		failed++;
		console.log("not ok " + n + " - " + what);
		if (diag) console.log("#   " + String(diag).slice(0, 2000).replace(/\n/g, "\n#   "));
	}
}
/* what the page shows for a number: 6 significant digits */
function close(text, want, tol) {
	if (typeof want !== "number" || !isFinite(want)) return text === "–";
	const got = parseFloat(String(text).replace(/[^0-9eE.+-]/g, ""));
	return Math.abs(got - want) <= tol * Math.max(1, Math.abs(want));
}

/* the markdown report's heading of a result: the verdict's oracle */
function headingOf(json) {
	const md = require("child_process").execFileSync(benchfarm,
		["report", "--format", "markdown", "--input", json], { encoding: "utf8" });
	const m = md.match(/^## benchfarm: (.*)$/m);
	return m ? m[1] : "";
}

/*
 * A name as the page shows it: the C1 controls and the invisible
 * direction controls (U+202E, "Trojan Source") as \u{NNNN}, the rest
 * exactly.
 */
const HIDDEN = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
function asShown(s) {
	return String(s).replace(HIDDEN, (c) =>
		"\\u{" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "}");
}

async function checkCompare(page, doc, name, hostile, jsonPath) {
	const rows = await page.$$eval("#bf-results tr", (trs) =>
		trs.slice(1).map((tr) => Array.from(tr.children, (td) => td.textContent)));
	const results = doc.results || [];
	ok(rows.length === results.length, name + ": the table has a row per result",
		rows.length + " rows, " + results.length + " results");
	const rank = ["regressed", "missing", "error", "improved", "unknown", "same", "ungated"];
	/* a regressed or improved series that does not gate is shown apart */
	const gate = (r) => r.gated === false && (r.verdict === "regressed" ||
		r.verdict === "improved") ? "ungated" : r.verdict;
	const word = (cell) => cell.replace(/^missing on the .*/, "missing")
		.replace(/^(regressed|improved) \(not gated\)$/, "ungated");
	const ranks = rows.map((r) => rank.indexOf(word(r[2])));
	ok(ranks.every((r, i) => !i || ranks[i - 1] <= r),
		name + ": regressions first, then missing, errors, improvements, unknown, same, not gated",
		ranks.join(","));
	let bad = [];
	for (const r of results) {
		const row = rows.find((x) => x[0] === asShown(r.name) && x[1].startsWith(r.metric));
		if (!row) { bad.push("no row shows " + JSON.stringify(r.name)); continue; }
		if (word(row[2]) !== gate(r)) bad.push(r.name + " verdict " + row[2]);
		if (gate(r) === "ungated" && row[2] !== r.verdict + " (not gated)")
			bad.push(r.name + " does not say it is not gated: " + row[2]);
		if (r.verdict === "missing" && !row[2].startsWith("missing on the " + r.missing + " side"))
			bad.push(r.name + " does not say the side: " + row[2]);
		if (r.base && !close(row[3], r.base.median, 1e-5)) bad.push(r.name + " base " + row[3]);
		if (r.patch && !close(row[4], r.patch.median, 1e-5)) bad.push(r.name + " patch " + row[4]);
		if (!close(row[5], typeof r.effect === "number" ? 100 * r.effect : null, 0.006))
			bad.push(r.name + " change " + row[5]);
	}
	ok(!bad.length, name + ": names, verdicts, medians and changes are the result's", bad.join("; "));
	const verdict = await page.textContent("#bf-verdict");
	const md = headingOf(jsonPath);
	ok(verdict.toLowerCase() === md.toLowerCase(),
		name + ": the verdict is the markdown report's heading", JSON.stringify({ verdict, md }));

	const plots = await page.evaluate(() => window.bfReport.plots.map((p) =>
		({ name: p.name, kind: p.kind, series: p.series, points: p.points })));
	const withEffect = results.filter((r) => typeof r.effect === "number");
	const forest = plots.filter((p) => p.kind === "forest");
	ok(withEffect.length ? forest.length === 1 && forest[0].points[0] === withEffect.length
		: forest.length === 0,
		name + ": one forest plot with a point per metric with a change",
		JSON.stringify(forest));
	const samples = plots.filter((p) => p.kind === "samples");
	const key = (x) => [x.benchmark, x.name, x.metric].join("\0");
	const want = results.filter((r) => (doc.samples || []).some((s) => key(s) === key(r)));
	bad = [];
	if (samples.length !== want.length) bad.push(samples.length + " plots for " + want.length + " metrics with samples");
	want.forEach((r, i) => {
		const ss = doc.samples.filter((s) => key(s) === key(r));
		const nb = ss.filter((s) => s.side === "base").length;
		const np = ss.filter((s) => s.side === "patch").length;
		const p = samples.find((x) => x.name === r.name + " · " + r.metric);
		if (!p) { bad.push("no plot for " + r.name); return; }
		if (p.series !== 4 || p.points[0] !== nb || p.points[1] !== np || p.points[2] !== ss.length)
			bad.push(r.name + ": " + JSON.stringify(p) + " want base " + nb + " patch " + np);
	});
	ok(!bad.length, name + ": a samples plot per metric, base and patch points and medians", bad.join("; "));

	if (want.length) {
		/* hover the first sample of the first plot */
		const r = (doc.results || []).slice().sort((a, b) =>
			(rank.indexOf(gate(a)) - rank.indexOf(gate(b)))).find((x) => want.includes(x));
		const s0 = doc.samples.find((s) => key(s) === key(r));
		const at = await page.evaluate(() => {
			const u = window.bfReport.plots.find((p) => p.kind === "samples").plot;
			const b = u.over.getBoundingClientRect();
			u.over.scrollIntoView({ block: "center" });
			const b2 = u.over.getBoundingClientRect();
			return { x: b2.left + u.valToPos(1, "x"), y: b2.top + u.valToPos(u.data[1][0] !== null ? u.data[1][0] : u.data[2][0], "y"), b: b.top };
		});
		await page.mouse.move(at.x, at.y);
		const tip = await page.textContent("#bf-tip");
		const dev = s0.device || (doc.devices && doc.devices.length === 1 ? doc.devices[0].name : "?");
		ok(tip.includes("run 1") && tip.includes(s0.side) && close(tip.split("\n")[1], s0.value, 1e-5) && tip.includes("device " + dev),
			name + ": hovering the first sample shows run 1, its side, value and device", JSON.stringify(tip));
	}
	const checks = doc.checks || [];
	const cells = await page.$$eval("#bf-checks .cell", (c) => c.length);
	const grid = new Set(checks.map((c) => c.device + "\0" + c.id)).size *
		new Set(checks.map((c) => c.block)).size;
	ok(cells === grid, name + ": the device-check timeline has a cell per check and block", cells + " cells, want " + grid);
	const errs = doc.errors || [];
	const infra = await page.$$eval("#bf-infra li", (l) => l.map((x) => x.textContent));
	ok(infra.length === errs.length && errs.every((e, i) => infra[i].endsWith(e.message)),
		name + ": the infrastructure failures are listed", JSON.stringify(infra));
	if (doc.trace) {
		const img = await page.$eval("#bf-flame-graph img", (i) => ({ w: i.naturalWidth, src: i.src.slice(0, 30) }));
		ok(img.w > 0 && img.src.startsWith("data:image/svg+xml"), name + ": the flame graph is shown inline", JSON.stringify(img));
	}
	if (hostile) {
		const names = await page.$$eval("#bf-results tr td:first-child", (t) => t.map((x) => x.textContent));
		ok(results.every((r) => names.includes(asShown(r.name))), name + ": hostile names are shown as text, exactly (direction controls escaped)");
		const text = await page.evaluate(() => document.body.textContent +
			Array.from(document.querySelectorAll("[title]"), (e) => e.title).join(""));
		ok(!new RegExp(HIDDEN.source).test(text), name + ": no direction or C1 control is shown raw");
	}
}

async function checkDashboard(page, doc, name, bench) {
	const plots = await page.evaluate(() => window.bfReport.plots.map((p) =>
		({ name: p.name, kind: p.kind, series: p.series, points: p.points })));
	const series = doc.series || [];
	let bad = [];
	if (plots.length !== series.length) bad.push(plots.length + " plots for " + series.length + " series");
	series.forEach((s, i) => {
		const p = plots[i];
		const pts = s.values.filter((v) => v !== null).length;
		if (!p || p.series !== 3 || p.points[0] !== pts) bad.push(s.benchmark + ": " + JSON.stringify(p) + " want " + pts);
	});
	ok(!bad.length, name + ": a plot per series, a point per measured commit and its spread", bad.join("; "));
	if (bench) return;
	if (!series.length) {
		const t = await page.$eval("#bf-empty", (p) => p.textContent).catch(() => "");
		ok(t.startsWith("No series"), name + ": without series the page says so", t);
		return;
	}
	const titles = await page.$$eval("#bf-series h3", (h) => h.map((x) => x.textContent));
	ok(series.every((s, i) => titles[i].startsWith(asShown(s.suite + " / " + s.benchmark + " · " + s.metric))),
		name + ": series titles are the names, as text", JSON.stringify(titles).slice(0, 300));
	const alerts = await page.$$eval("#bf-series li", (l) => l.map((x) => x.textContent));
	const nal = (doc.alerts || []).filter((a) => series.some((s) => s.suite === a.suite &&
		s.benchmark === a.benchmark && s.metric === a.metric && s.device_class === a.device_class));
	ok(alerts.length === nal.length && nal.every((a) => alerts.some((t) => t.includes(": " + a.status))),
		name + ": every alert is listed under its series with its state", JSON.stringify(alerts));
	/* hover a measured commit in the middle of the first series */
	const s0 = series[0];
	let k = Math.floor(s0.values.length / 2);
	while (k > 0 && s0.values[k] === null) k--;
	const at = await page.evaluate((k) => {
		const u = window.bfReport.plots[0].plot;
		u.over.scrollIntoView({ block: "center" });
		const b = u.over.getBoundingClientRect();
		return { x: b.left + u.valToPos(k, "x"), y: b.top + u.valToPos(u.data[1][k], "y") };
	}, k);
	await page.mouse.move(at.x, at.y);
	const tip = await page.textContent("#bf-tip");
	const c = doc.commits[k];
	ok(tip.startsWith(c.id.slice(0, 12)) && tip.includes((c.subject || "").slice(0, 40)) &&
		close(tip.split("\n")[2].split(" ")[0], s0.values[k], 1e-5) &&
		(!s0.spread[2 * k] || close((tip.match(/\(([^ ]+) … /) || [])[1], s0.values[k] * (1 - s0.spread[2 * k] / 1000), 1e-5)),
		name + ": hovering a point shows its commit, date, subject, value and its runs' range", JSON.stringify(tip));
	await page.mouse.click(at.x, at.y);
	const link = await page.$eval("#bf-commit", (p) => { const a = p.querySelector("a"); return { text: p.textContent, href: a ? a.href : null }; });
	const wantHref = doc.commit_url ? doc.commit_url.split("{commit}").join(c.id) : null;
	ok(link.text.startsWith(c.id.slice(0, 12)) && link.href === wantHref,
		name + ": clicking a point shows the commit, linked by the config's template", JSON.stringify(link));
	/* filter by metric: only that metric's series stay */
	const m = s0.metric;
	await page.selectOption("#bf-f-metric", m);
	const shown = await page.$$eval("#bf-series > div", (d) => d.filter((x) => x.style.display !== "none").length);
	ok(shown === series.filter((s) => s.metric === m).length, name + ": the metric filter leaves that metric's series", shown);
	await page.selectOption("#bf-f-metric", "");
	/* zoom: a drag with the mouse over the first plot narrows every plot */
	const n = doc.commits.length;
	const box = await page.evaluate((n) => {
		const u = window.bfReport.plots[0].plot;
		u.over.scrollIntoView({ block: "center" });
		const b = u.over.getBoundingClientRect();
		return { x0: b.left + u.valToPos(n * 0.25, "x"), x1: b.left + u.valToPos(n * 0.5, "x"), y: b.top + b.height / 2 };
	}, n);
	await page.mouse.move(box.x0, box.y);
	await page.mouse.down();
	await page.mouse.move(box.x1, box.y, { steps: 5 });
	await page.mouse.up();
	/* uPlot applies a scale when it commits, at the next frame */
	const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
	await frame();
	const z = await page.evaluate(() => window.bfReport.plots.map((p) => [p.plot.scales.x.min, p.plot.scales.x.max]));
	ok(z.every((r) => Math.abs(r[0] - n * 0.25) < n * 0.03 && Math.abs(r[1] - n * 0.5) < n * 0.03),
		name + ": a drag over one plot zooms every plot to the dragged commits", JSON.stringify(z).slice(0, 200));
	/* the wheel zooms out again around the cursor, shift+wheel pans */
	await page.mouse.move((box.x0 + box.x1) / 2, box.y);
	await page.mouse.wheel(0, 100);
	await frame();
	const w = await page.evaluate(() => window.bfReport.plots.map((p) => [p.plot.scales.x.min, p.plot.scales.x.max]));
	ok(w.every((r, i) => r[1] - r[0] > z[i][1] - z[i][0]), name + ": the wheel zooms out, every plot alike", JSON.stringify(w).slice(0, 200));
	await page.keyboard.down("Shift");
	await page.mouse.wheel(0, 100);
	await page.keyboard.up("Shift");
	await frame();
	const p2 = await page.evaluate(() => window.bfReport.plots.map((p) => [p.plot.scales.x.min, p.plot.scales.x.max]));
	ok(p2.every((r, i) => r[0] > w[i][0] && Math.abs((r[1] - r[0]) - (w[i][1] - w[i][0])) < 1e-6),
		name + ": shift+wheel pans, the width kept", JSON.stringify(p2).slice(0, 200));
	await page.click("#bf-reset");
	await frame();
	const r0 = await page.evaluate(() => window.bfReport.plots.map((p) => [p.plot.scales.x.min, p.plot.scales.x.max]));
	ok(r0.every((r) => r[0] === 0 && r[1] === n - 1), name + ": reset zoom shows every commit again", JSON.stringify(r0).slice(0, 200));
}

async function main() {
	const browser = await pw.launch({ executablePath: chromium, headless: true,
		args: ["--no-sandbox", "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"] });
	fs.mkdirSync(shots, { recursive: true });
	for (const spec of args) {
		const [html, json, mode] = spec.split("=");
		const name = path.basename(html, ".html");
		const doc = JSON.parse(fs.readFileSync(json, "utf8"));
		const ctx = await browser.newContext({ offline: true, viewport: { width: 1200, height: 900 } });
		const page = await ctx.newPage();
		const url = "file://" + path.resolve(html);
		const requests = [], errors = [], dialogs = [];
		await ctx.route("**/*", (route) => {
			if (route.request().url() === url) return route.continue();
			requests.push(route.request().url());
			return route.abort();
		});
		page.on("request", (r) => { if (r.url() !== url && !r.url().startsWith("data:")) requests.push(r.url()); });
		page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") errors.push(m.text()); });
		page.on("pageerror", (e) => errors.push(String(e)));
		page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
		const t0 = Date.now();
		await page.goto(url);
		await page.waitForFunction(() => window.bfReport && window.bfReport.ready, null, { timeout: 20000 });
		const loadMs = Date.now() - t0;
		const times = await page.evaluate(() => ({ draw: window.bfReport.drawMs, script: window.bfReport.scriptMs, start: window.bfReport.startMs, last: window.bfReport.lastDraw, dcl: performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd }));
		if (mode === "bench") console.log("# timing: report.js started at " + times.start.toFixed(0) + " ms, its last uPlot draw at " + times.last.toFixed(0) + " ms, DOMContentLoaded at " + times.dcl.toFixed(0) + " ms");
		const drawn = await page.evaluate(() => window.bfReport.plots.map((p) => {
			const c = p.plot.ctx, cv = c.canvas;
			const d = c.getImageData(0, 0, cv.width, cv.height).data;
			let ink = 0;
			for (let i = 3; i < d.length; i += 4 * 7) if (d[i]) ink++;
			return ink;
		}));
		const nothing = !(doc.results || []).length && !(doc.series || []).length;
		ok((drawn.length > 0 || nothing) && drawn.every((x) => x > 0), name + ": every plot is drawn (" + drawn.length + " canvases have ink)", JSON.stringify(drawn).slice(0, 300));
		if (mode === "bench") {
			const size = fs.statSync(html).size;
			console.log("# bench: " + name + ": " + size + " bytes, " + drawn.length + " plots; from navigation start to the last plot painted " + times.draw.toFixed(0) + " ms (our script " + times.script.toFixed(0) + " ms; playwright's goto to ready " + loadMs + " ms)");
			ok(size <= 1.5 * 1024 * 1024, name + ": the page is at most 1.5 MB (" + size + " bytes)");
			ok(times.draw < 1000, name + ": drawn in under 1 s (" + times.draw.toFixed(0) + " ms)");
			await checkDashboard(page, doc, name, true);
		} else if (doc.kind === "dashboard") {
			await checkDashboard(page, doc, name, false);
		} else {
			await checkCompare(page, doc, name, mode === "hostile", json);
		}
		await page.screenshot({ path: path.join(shots, name + ".png"), fullPage: mode !== "bench" });
		const pwned = await page.evaluate(() => window.__pwned);
		const nscripts = await page.$$eval("script", (s) => s.length);
		ok(pwned === undefined && !dialogs.length && nscripts === (doc.trace ? 4 : 3),
			name + ": nothing from the result runs (no injected script, no dialog)",
			JSON.stringify({ pwned, dialogs, nscripts }));
		ok(!requests.length, name + ": no request leaves the page", requests.join(" "));
		ok(!errors.length, name + ": no console error", errors.join("\n"));
		await ctx.close();
	}
	await browser.close();
	console.log("# " + n + " checks, " + failed + " failed");
	process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log("not ok " + (n + 1) + " - the browser run failed: " + e.message.split("\n")[0]); console.log("# " + e.stack); process.exit(1); });
