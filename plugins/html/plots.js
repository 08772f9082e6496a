/*
 * benchfarm's HTML reports, first part: what the page's script
 * (report.js, which follows it in the same script element after uPlot)
 * draws with. The result's state for the browser tests (window.bfReport),
 * elements, numbers as the page shows them, the tooltip, the plots'
 * bookkeeping, and the comparison's two plots: the change with its
 * confidence interval, and the samples in run order. Every text of the
 * result is set with textContent or drawn on a canvas, never parsed as
 * markup. What report.js uses is returned as bfPage.
 */
var bfPage = (function () {
	"use strict";
	var t0 = performance.now();
	var report = { plots: [], ready: false, drawMs: 0, scriptMs: 0, startMs: t0,
		kind: "" };
	window.bfReport = report;

	/*
	 * Text of the result as the page shows it: the C1 controls and the
	 * invisible direction controls (U+202E and the like, "Trojan
	 * Source"), which the terminal and the other reports show escaped
	 * (core/src/text.c), are shown as \u{NNNN} here too, so that no name
	 * reorders what is shown around it.
	 */
	var HIDDEN = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
	function inert(s) {
		return String(s).replace(HIDDEN, function (c) {
			var hex = c.charCodeAt(0).toString(16).toUpperCase();
			return "\\u{" + ("000" + hex).slice(-4) + "}";
		});
	}
	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		if (attrs)
			for (var k in attrs)
				if (k === "class") e.className = attrs[k];
				else e.setAttribute(k, attrs[k]);
		if (text !== undefined && text !== null) e.textContent = inert(text);
		return e;
	}
	function add(parent, child) {
		parent.appendChild(child);
		return child;
	}
	/* 6 significant digits, no trailing zeros: what every number shows */
	function num(v) {
		if (!fin(v)) return "–";
		return String(Number(Number(v).toPrecision(6)));
	}
	function pct(v) {
		if (!fin(v)) return "–";
		return (v >= 0 ? "+" : "") + (100 * v).toFixed(2) + "%";
	}
	function fin(v) {
		return typeof v === "number" && isFinite(v);
	}
	function word(s) {
		return String(s || "").replace(/[^a-z0-9_-]/gi, "");
	}
	function short(s, n) {
		s = String(s);
		return s.length > n ? s.slice(0, n - 1) + "…" : s;
	}

	var tip = el("div", { class: "tip", id: "bf-tip" });
	function showTip(text, x, y) {
		tip.textContent = inert(text);
		tip.style.display = "block";
		tip.style.left = Math.min(x + 14, window.innerWidth - 260) + "px";
		tip.style.top = y + 14 + "px";
	}
	function hideTip() {
		tip.style.display = "none";
	}
	/*
	 * A tooltip from uPlot's cursor: text(idx) for the hovered point, from
	 * the plot under the mouse only (the dashboard's plots share their
	 * cursor, and each would otherwise overwrite the tip).
	 */
	var under = null;
	function tipHook(text) {
		return function (u) {
			if (under !== u) return;
			var i = u.cursor.idx;
			if (i === null || i === undefined || u.cursor.left < 0) {
				hideTip();
				return;
			}
			var s = text(i);
			if (!s) {
				hideTip();
				return;
			}
			var r = u.over.getBoundingClientRect();
			showTip(s, r.left + u.cursor.left, r.top + u.cursor.top);
		};
	}
	function track(u, name, kind) {
		u.over.addEventListener("mouseenter", function () { under = u; });
		u.over.addEventListener("mouseleave", function () {
			under = null;
			hideTip();
		});
		var pts = [];
		for (var s = 1; s < u.data.length; s++) {
			var n = 0;
			for (var i = 0; i < u.data[s].length; i++)
				if (u.data[s][i] !== null && u.data[s][i] !== undefined) n++;
			pts.push(n);
		}
		report.plots.push({ name: name, kind: kind,
			series: u.series.length - 1, points: pts, plot: u });
	}
	function width(box) {
		return Math.max(320, Math.min(box.clientWidth || 560, 1100));
	}

	function metricKey(r) {
		return [r.benchmark, r.name, r.metric].join("\u0000");
	}
	function metricLabel(r) {
		return r.name + " · " + r.metric;
	}

	/* change and its CI for every metric on one shared axis */
	function forest(app, rows) {
		rows = rows.filter(function (r) { return fin(r.effect); });
		if (!rows.length) return;
		add(app, el("h2", null, "Change with its confidence interval"));
		var box = add(app, el("div", { class: "plot", id: "bf-forest" }));
		var xs = [], eff = [], lo = [], hi = [];
		rows.forEach(function (r, i) {
			xs.push(i + 1);
			eff.push(100 * r.effect);
			lo.push(fin(r.ci_low) ? 100 * r.ci_low : null);
			hi.push(fin(r.ci_high) ? 100 * r.ci_high : null);
		});
		var min = Math.min.apply(null, lo.concat(eff, [0]).filter(fin));
		var max = Math.max.apply(null, hi.concat(eff, [0]).filter(fin));
		var pad = (max - min) * 0.1 || 1;
		var u = new uPlot({
			width: width(app), height: 120 + 24 * rows.length,
			scales: { x: { time: false, range: [0.5, rows.length + 0.5] },
				y: { range: [min - pad, max + pad] } },
			legend: { show: false },
			axes: [{ splits: function () { return xs; },
				values: function (u_, sp) {
					return sp.map(function (v) {
						var r = rows[v - 1];
						return r ? short(metricLabel(r), 24) : "";
					});
				}, rotate: -20, size: 80 },
			{ label: "change (%)", values: function (u_, sp) {
				return sp.map(function (v) { return v.toFixed(1) + "%"; });
			} }],
			series: [{}, { label: "change", stroke: "#333",
				paths: function () { return null; },
				points: { show: true, size: 9, fill: "#333" } },
			{ label: "ci low", show: true, stroke: "transparent",
				paths: function () { return null; }, points: { show: false } },
			{ label: "ci high", show: true, stroke: "transparent",
				paths: function () { return null; }, points: { show: false } }],
			hooks: {
				draw: [function (u_) {
					var c = u_.ctx, y0 = u_.valToPos(0, "y", true);
					c.save();
					c.strokeStyle = "#999";
					c.setLineDash([4, 4]);
					c.beginPath();
					c.moveTo(u_.bbox.left, y0);
					c.lineTo(u_.bbox.left + u_.bbox.width, y0);
					c.stroke();
					c.setLineDash([]);
					c.lineWidth = 2;
					rows.forEach(function (r, i) {
						if (lo[i] === null || hi[i] === null) return;
						var x = u_.valToPos(i + 1, "x", true);
						/* a series that does not gate is drawn grey */
						c.strokeStyle = r.gated === false ? "#555"
							: r.verdict === "regressed" ? "#d62728"
							: r.verdict === "improved" ? "#2ca02c" : "#555";
						c.beginPath();
						c.moveTo(x, u_.valToPos(lo[i], "y", true));
						c.lineTo(x, u_.valToPos(hi[i], "y", true));
						c.moveTo(x - 5, u_.valToPos(lo[i], "y", true));
						c.lineTo(x + 5, u_.valToPos(lo[i], "y", true));
						c.moveTo(x - 5, u_.valToPos(hi[i], "y", true));
						c.lineTo(x + 5, u_.valToPos(hi[i], "y", true));
						c.stroke();
					});
					c.restore();
				}],
				setCursor: [tipHook(function (i) {
					var r = rows[i];
					return r && metricLabel(r) + "\n" + r.verdict + " " +
						pct(r.effect) + " [" + pct(r.ci_low) + " … " +
						pct(r.ci_high) + "]";
				})]
			}
		}, [xs, eff, lo, hi], box);
		track(u, "forest", "forest");
	}

	/* each metric's samples in run order, base and patch, with medians */
	function samplePlots(app, doc, rows) {
		var samples = doc.samples || [];
		var devices = doc.devices || [];
		var oneDevice = devices.length === 1 ? devices[0].name : null;
		var by = {};
		samples.forEach(function (s) {
			var k = metricKey(s);
			(by[k] = by[k] || []).push(s);
		});
		add(app, el("h2", null, "Samples in run order"));
		add(app, el("p", { class: "muted" }, "Each point is one sample, " +
			"in the order the runs finished; the lines are the medians."));
		if (!samples.length)
			add(app, el("p", { class: "muted" }, "The result holds no samples."));
		var wrap = add(app, el("div", { class: "plots", id: "bf-samples" }));
		var plotW = Math.min(width(app), 540);
		rows.forEach(function (r) {
			var ss = by[metricKey(r)];
			if (!ss || !ss.length) return;
			var box = add(wrap, el("div", { class: "plot" }));
			add(box, el("h3", null, metricLabel(r) + " — " + r.verdict));
			var runs = {}, nruns = 0, xs = [], b = [], p = [], info = [];
			ss.forEach(function (s, i) {
				var key = s.side + "/" + s.repeat;
				if (!(key in runs)) runs[key] = ++nruns;
				xs.push(i + 1);
				b.push(s.side === "base" ? s.value : null);
				p.push(s.side === "patch" ? s.value : null);
				info.push({ run: runs[key], side: s.side, value: s.value,
					device: s.device || oneDevice || "?" });
			});
			var bm = r.base ? r.base.median : null;
			var pm = r.patch ? r.patch.median : null;
			var pts = function (color) {
				return { show: true, size: 7, fill: color, stroke: color };
			};
			var u = new uPlot({
				width: plotW, height: 240,
				scales: { x: { time: false } },
				axes: [{ label: "sample (run order)" },
					{ label: inert(r.unit || ""), size: 90 }],
				series: [{ label: "sample" },
					{ label: "base", stroke: "#1f77b4",
						paths: function () { return null; }, points: pts("#1f77b4") },
					{ label: "patch", stroke: "#d62728",
						paths: function () { return null; }, points: pts("#d62728") },
					{ label: "base median", stroke: "#1f77b4", dash: [6, 4],
						points: { show: false } },
					{ label: "patch median", stroke: "#d62728", dash: [6, 4],
						points: { show: false } }],
				legend: { show: true, live: false },
				hooks: { setCursor: [tipHook(function (i) {
					var x = info[i];
					return x && "run " + x.run + " · " + x.side + "\n" +
						num(x.value) + " " + (r.unit || "") + "\ndevice " +
						x.device;
				})] }
			}, [xs, b, p, xs.map(function () { return bm; }),
				xs.map(function () { return pm; })], box);
			track(u, metricLabel(r), "samples");
		});
	}

	return { t0: t0, report: report, el: el, inert: inert, add: add,
		num: num, pct: pct,
		fin: fin, word: word, short: short, tip: tip, hideTip: hideTip,
		tipHook: tipHook, track: track, width: width, forest: forest,
		samplePlots: samplePlots };
})();
