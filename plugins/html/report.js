/*
 * benchfarm's HTML reports: the page script plugins/report_html.c inlines
 * after uPlot. It reads the result from the JSON element #bf-result and
 * builds the page. Every text of the result (names, subjects, messages)
 * is set with textContent or drawn on a canvas, never parsed as markup.
 * What was drawn is left in window.bfReport for the browser tests.
 */
(function () {
	"use strict";
	var t0 = performance.now();
	var report = { plots: [], ready: false, drawMs: 0, scriptMs: 0, startMs: t0,
		kind: "" };
	window.bfReport = report;

	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		if (attrs)
			for (var k in attrs)
				if (k === "class") e.className = attrs[k];
				else e.setAttribute(k, attrs[k]);
		if (text !== undefined && text !== null) e.textContent = String(text);
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
		tip.textContent = text;
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

	/* ---- a comparison ---- */

	var RANK = ["regressed", "error", "improved", "unknown", "same"];
	function rank(v) {
		var i = RANK.indexOf(v);
		return i < 0 ? RANK.length : i;
	}
	function metricKey(r) {
		return [r.benchmark, r.name, r.metric].join("\u0000");
	}
	function metricLabel(r) {
		return r.name + " · " + r.metric;
	}

	function count(rows, verdict) {
		return rows.filter(function (r) { return r.verdict === verdict; }).length;
	}
	function plural(n, w) {
		return n + " " + w + (n === 1 ? "" : "s");
	}
	/*
	 * The verdict, worded as the markdown report's heading: a result with
	 * infrastructure failures or with nothing compared never reads as
	 * clean ("N" + "o regressions" is only said of a complete comparison).
	 */
	function verdictOf(doc) {
		var rows = doc.results || [], s = doc.summary || {};
		var reg = count(rows, "regressed"), imp = count(rows, "improved");
		var unk = count(rows, "unknown");
		var infra = (doc.status || "ok") !== "ok" ||
			(doc.errors || []).length > 0 || s.errors > 0 ||
			s.failed_runs > 0 || count(rows, "error") > 0;
		var t, cls;
		if (infra) {
			t = "Incomplete, infrastructure failures" +
				(reg ? "; " + plural(reg, "regression")
					: !rows.length ? "; nothing was compared"
						: "; nothing regressed among what was measured");
			cls = "failed";
		} else if (reg) {
			t = plural(reg, "regression");
			cls = "regressed";
		} else if (!rows.length) {
			t = "Nothing was compared";
			cls = "unknown";
		} else if (unk === rows.length) {
			t = "Not conclusive: too few or too noisy samples to tell";
			cls = "unknown";
		} else {
			t = "N" + "o regressions" + (unk ? ", " + unk + " not conclusive"
				: "");
			cls = "ok";
		}
		if (imp) t += ", " + plural(imp, "improvement");
		return { text: t, cls: cls };
	}

	function headline(app, doc) {
		var s = doc.summary || {};
		var v = verdictOf(doc);
		add(app, el("h1", null, "benchfarm comparison"));
		add(app, el("div", { class: "verdict v-" + v.cls, id: "bf-verdict" },
			v.text));
		var p = add(app, el("p", { id: "bf-summary" }));
		p.textContent = [
			(s.regressed || 0) + " regressed",
			(s.improved || 0) + " improved",
			(s.same || 0) + " same",
			(s.unknown || 0) + " unknown",
			(s.errors || 0) + " errors"].join(", ");
		var sides = add(app, el("p", { class: "muted" }));
		["base", "patch"].forEach(function (side) {
			var c = doc[side] || {};
			add(sides, el("span", null, side + " " +
				String(c.commit || "?").slice(0, 12) + " " +
				(c.subject || "") + (side === "base" ? " → " : "")));
		});
	}

	function resultsTable(app, rows) {
		add(app, el("h2", null, "Results"));
		var t = add(app, el("table", { id: "bf-results" }));
		var h = add(t, el("tr"));
		["Benchmark", "Metric", "Verdict", "Base median", "Patch median",
			"Change", "95% CI", "p (adjusted)"].forEach(function (c) {
			add(h, el("th", null, c));
		});
		rows.forEach(function (r) {
			var tr = add(t, el("tr", { class: "v-" + word(r.verdict) }));
			add(tr, el("td", null, r.name));
			add(tr, el("td", null, r.metric + (r.unit ? " (" + r.unit + ")"
				: "")));
			add(tr, el("td", null, r.verdict));
			add(tr, el("td", { class: "num" }, num(r.base && r.base.median)));
			add(tr, el("td", { class: "num" }, num(r.patch && r.patch.median)));
			add(tr, el("td", { class: "num" }, pct(r.effect)));
			add(tr, el("td", { class: "num" }, !fin(r.ci_low) || !fin(r.ci_high)
				? "–" : pct(r.ci_low) + " … " + pct(r.ci_high)));
			add(tr, el("td", { class: "num" }, num(r.p_adjusted)));
		});
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
						c.strokeStyle = r.verdict === "regressed" ? "#d62728"
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
					{ label: r.unit || "", size: 90 }],
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

	function checksTimeline(app, doc) {
		var checks = doc.checks || [];
		add(app, el("h2", null, "Device health checks"));
		if (!checks.length) {
			add(app, el("p", { class: "muted" }, "No device checks ran."));
			return;
		}
		add(app, el("p", { class: "muted" }, "Before each block of runs, " +
			"left to right; hover a cell for the check's message."));
		var blocks = [], rowsOf = {}, order = [];
		checks.forEach(function (c) {
			if (blocks.indexOf(c.block) < 0) blocks.push(c.block);
			var k = c.device + "\u0000" + c.id;
			if (!(k in rowsOf)) {
				rowsOf[k] = {};
				order.push({ k: k, device: c.device, id: c.id });
			}
			rowsOf[k][c.block] = c;
		});
		blocks.sort(function (a, b) { return a - b; });
		var g = add(app, el("div", { class: "timeline", id: "bf-checks" }));
		g.style.gridTemplateColumns = "minmax(10em, max-content) repeat(" +
			blocks.length + ", 20px)";
		add(g, el("span", { class: "muted" }, "block"));
		blocks.forEach(function (b) { add(g, el("span", { class: "muted" }, b)); });
		var bad = [];
		order.forEach(function (o) {
			add(g, el("span", null, o.device + " " + o.id));
			blocks.forEach(function (b) {
				var c = rowsOf[o.k][b];
				var cell = add(g, el("span", { class: "cell s-" +
					word(c ? c.status : "none") }));
				if (c) {
					cell.title = "block " + b + ": " + c.status + " — " +
						(c.message || "");
					if (c.status !== "pass" && c.status !== "skip") bad.push(c);
				}
			});
		});
		if (bad.length) {
			var ul = add(app, el("ul", { id: "bf-check-problems" }));
			bad.forEach(function (c) {
				add(ul, el("li", null, c.device + " block " + c.block + " " +
					c.id + ": " + c.status + " — " + (c.message || "")));
			});
		}
	}

	function infra(app, doc) {
		var s = doc.summary || {}, errs = doc.errors || [];
		add(app, el("h2", null, "Infrastructure failures"));
		var box = add(app, el("div", { id: "bf-infra" }));
		if (!errs.length && !s.failed_runs && !s.reconnects && !s.aborted) {
			add(box, el("p", { class: "muted" }, "None."));
			return;
		}
		add(box, el("p", null, (s.failed_runs || 0) + " failed runs, " +
			(s.reconnects || 0) + " reconnects, " + (s.moved_units || 0) +
			" units moved" + (s.aborted ? "; the comparison was aborted" :
			"")));
		var ul = add(box, el("ul"));
		errs.forEach(function (e) {
			add(ul, el("li", null, [e.benchmark, e.side,
				e.repeat === undefined || e.repeat < 0 ? "warmup"
					: "run " + e.repeat, e.code].join(" ") + ": " + e.message));
		});
	}

	function flame(app, doc) {
		var t = doc.trace;
		if (!t) return;
		add(app, el("h2", null, "Differential flame graph"));
		var node = document.getElementById("bf-flame");
		var box = add(app, el("div", { class: "flame", id: "bf-flame-graph" }));
		if (t.error) {
			add(box, el("p", null, "No trace of " + t.benchmark + ": " +
				t.error));
			return;
		}
		if (!node) {
			add(box, el("p", null, "The flame graph " + (t.diff_svg || "") +
				" could not be read when this page was written."));
			return;
		}
		add(box, el("p", { class: "muted" }, t.benchmark + ": red slower " +
			"in the patch, blue faster."));
		var img = add(box, el("img", { alt: "differential flame graph" }));
		img.src = "data:image/svg+xml;charset=utf-8," +
			encodeURIComponent(JSON.parse(node.textContent));
	}

	function comparePage(app, doc) {
		var rows = (doc.results || []).slice().sort(function (a, b) {
			return rank(a.verdict) - rank(b.verdict);
		});
		headline(app, doc);
		resultsTable(app, rows);
		forest(app, rows);
		samplePlots(app, doc, rows);
		checksTimeline(app, doc);
		infra(app, doc);
		flame(app, doc);
	}

	/* ---- the postsubmit history ---- */

	function isoDate(t) {
		return t ? new Date(t * 1000).toISOString().replace(".000", "") : "";
	}
	function commitUrl(tmpl, id) {
		if (!tmpl || !/^https?:\/\//.test(tmpl)) return null;
		return tmpl.split("{commit}").join(encodeURIComponent(id));
	}

	function dashboardPage(app, doc) {
		var commits = doc.commits || [], series = doc.series || [];
		var alerts = doc.alerts || [];
		var ncommits = commits.length;
		add(app, el("h1", null, "benchfarm dashboard"));
		add(app, el("p", { id: "bf-summary" }, series.length + " series over " +
			ncommits + " commits" + (doc.branch ? " of " + doc.branch : "") +
			"; " + alerts.length + " alerts. Drag on a plot to zoom, " +
			"double-click to reset, wheel to zoom, shift+wheel to pan; " +
			"click a point for its commit."));
		var bar = add(app, el("div", { class: "filters" }));
		function select(label, id, values) {
			var l = add(bar, el("label", null, label + " "));
			var s = add(l, el("select", { id: id }));
			add(s, el("option", { value: "" }, "all"));
			values.forEach(function (v) { add(s, el("option", { value: v }, v)); });
			return s;
		}
		function uniq(f) {
			var seen = {}, out = [];
			series.forEach(function (s) {
				var v = f(s);
				if (!(v in seen)) { seen[v] = 1; out.push(v); }
			});
			return out.sort();
		}
		var benchOf = function (s) { return s.suite + " / " + s.benchmark; };
		var fb = select("benchmark", "bf-f-bench", uniq(benchOf));
		var fm = select("metric", "bf-f-metric", uniq(function (s) {
			return s.metric; }));
		var fd = select("device class", "bf-f-device", uniq(function (s) {
			return s.device_class; }));
		var reset = add(bar, el("button", { id: "bf-reset" }, "reset zoom"));
		var picked = add(app, el("p", { id: "bf-commit", class: "muted" }));
		var xs = [];
		for (var i = 0; i < ncommits; i++) xs.push(i);
		var index = {};
		commits.forEach(function (c, i) { index[c.id] = i; });
		var plots = [], syncing = false;
		function setAll(min, max, from) {
			/* the plots' own first scaling is not a zoom to share */
			if (syncing || !report.ready) return;
			syncing = true;
			plots.forEach(function (u) {
				if (u !== from) u.setScale("x", { min: min, max: max });
			});
			syncing = false;
		}
		function pick(i) {
			var c = commits[i];
			picked.textContent = "";
			if (!c) return;
			var url = commitUrl(doc.commit_url, c.id);
			var who = url ? add(picked, el("a", { href: url, rel: "noopener",
				target: "_blank" })) : add(picked, el("span"));
			who.textContent = c.id.slice(0, 12);
			add(picked, el("span", null, " " + isoDate(c.time) + " " +
				(c.subject || "")));
		}
		if (!series.length)
			add(app, el("p", { id: "bf-empty" }, "No series: nothing recorded " +
				"on " + (doc.device_classes || []).join(", ") + " over these " +
				"commits matches."));
		var list = add(app, el("div", { id: "bf-series" }));
		/* read once: asking per plot would lay the page out per plot */
		var plotW = width(app);
		series.forEach(function (s) {
			var box = add(list, el("div", { class: "series" }));
			box.bfSeries = s;
			add(box, el("h3", null, benchOf(s) + " · " + s.metric +
				(s.unit ? " (" + s.unit + ")" : "") + " on " + s.device_class));
			var v = s.values, sp = s.spread || [], lo = [], hi = [];
			for (var k = 0; k < ncommits; k++) {
				var y = v[k];
				lo.push(y === null ? null : y * (1 - (sp[2 * k] || 0) / 1000));
				hi.push(y === null ? null : y * (1 + (sp[2 * k + 1] || 0) / 1000));
			}
			var mine = alerts.filter(function (a) {
				return a.suite === s.suite && a.benchmark === s.benchmark &&
					a.metric === s.metric && a.device_class === s.device_class;
			});
			var u = new uPlot({
				width: plotW, height: 200,
				scales: { x: { time: false } },
				cursor: { drag: { x: true, y: false, setScale: true },
					sync: { key: "bf-history" } },
				legend: { show: false },
				axes: [{ values: function (u_, sp_) {
					return sp_.map(function (x) {
						var c = commits[Math.round(x)];
						return c && Math.round(x) === x ? c.id.slice(0, 7) : "";
					});
				} }, { size: 70 }],
				series: [{}, { label: s.metric, stroke: "#1f77b4", width: 1,
					spanGaps: true, points: { show: ncommits <= 200, size: 4 } },
				{ label: "min", stroke: "rgba(31,119,180,0.3)", width: 0,
					spanGaps: true, points: { show: false } },
				{ label: "max", stroke: "rgba(31,119,180,0.3)", width: 0,
					spanGaps: true, points: { show: false } }],
				bands: [{ series: [3, 2], fill: "rgba(31,119,180,0.15)" }],
				hooks: {
					draw: [function (u_) {
						var c = u_.ctx;
						report.lastDraw = performance.now();
						c.save();
						mine.forEach(function (a) {
							var i0 = index[a.commit_lo], i1 = index[a.commit_hi];
							if (i0 === undefined || i1 === undefined) return;
							var x0 = u_.valToPos(i0, "x", true);
							var x1 = u_.valToPos(i1, "x", true);
							c.fillStyle = a.status === "ignored"
								? "rgba(150,150,150,0.25)" : a.status === "ack"
									? "rgba(255,127,14,0.25)" : "rgba(214,39,40,0.25)";
							c.fillRect(Math.min(x0, x1), u_.bbox.top,
								Math.max(Math.abs(x1 - x0), 3), u_.bbox.height);
							if (a.culprit && index[a.culprit] !== undefined) {
								var xc = u_.valToPos(index[a.culprit], "x", true);
								c.strokeStyle = "#000";
								c.beginPath();
								c.moveTo(xc, u_.bbox.top);
								c.lineTo(xc, u_.bbox.top + u_.bbox.height);
								c.stroke();
							}
						});
						c.restore();
					}],
					setScale: [function (u_, key) {
						if (key === "x") setAll(u_.scales.x.min, u_.scales.x.max, u_);
					}],
					setCursor: [tipHook(function (i) {
						var c = commits[i], y = v[i];
						if (!c || y === null || y === undefined) return null;
						return c.id.slice(0, 12) + " " + isoDate(c.time) + "\n" +
							short(c.subject || "", 80) + "\n" + num(y) + " " +
							(s.unit || "") + (lo[i] !== hi[i] ? "  (" +
							num(lo[i]) + " … " + num(hi[i]) + ")" : "");
					})]
				}
			}, [xs, v, lo, hi], box);
			u.over.addEventListener("click", function () {
				if (u.cursor.idx !== null) pick(u.cursor.idx);
			});
			u.over.addEventListener("wheel", function (e) {
				e.preventDefault();
				var min = u.scales.x.min, max = u.scales.x.max, w = max - min;
				if (e.shiftKey) {
					var d = w * 0.1 * Math.sign(e.deltaY || e.deltaX);
					u.setScale("x", { min: min + d, max: max + d });
					return;
				}
				var at = u.posToVal(u.cursor.left, "x");
				var f = e.deltaY < 0 ? 0.8 : 1.25;
				var nmin = at - (at - min) * f, nmax = at + (max - at) * f;
				u.setScale("x", { min: Math.max(-1, nmin),
					max: Math.min(ncommits, nmax) });
			}, { passive: false });
			plots.push(u);
			track(u, benchOf(s) + " · " + s.metric, "history");
			if (mine.length) {
				var ul = add(box, el("ul", { class: "alerts" }));
				mine.forEach(function (a) {
					var li = add(ul, el("li", { class: "alert-" +
						word(a.status) }));
					li.textContent = a.direction + " " + pct(a.size) + " between " +
						String(a.commit_lo).slice(0, 12) + " and " +
						String(a.commit_hi).slice(0, 12) + ": " + a.status +
						(a.culprit ? "; bisected culprit " +
							String(a.culprit).slice(0, 12) : "");
				});
			}
		});
		function filter() {
			Array.prototype.forEach.call(list.children, function (box) {
				var s = box.bfSeries;
				box.style.display = (!fb.value || benchOf(s) === fb.value) &&
					(!fm.value || s.metric === fm.value) &&
					(!fd.value || s.device_class === fd.value) ? "" : "none";
			});
		}
		[fb, fm, fd].forEach(function (f) { f.addEventListener("change", filter); });
		reset.addEventListener("click", function () {
			if (plots.length) plots[0].setScale("x", { min: 0, max: ncommits - 1 });
		});
	}

	function main() {
		var app = document.getElementById("bf-app");
		app.textContent = "";
		document.body.appendChild(tip);
		document.addEventListener("mouseleave", hideTip);
		var doc = JSON.parse(document.getElementById("bf-result").textContent);
		report.kind = doc.kind;
		if (doc.kind === "dashboard") dashboardPage(app, doc);
		else comparePage(app, doc);
		report.scriptMs = performance.now() - t0;
		/* drawn: the frame after the plots were made has been painted */
		requestAnimationFrame(function () {
			setTimeout(function () {
				report.drawMs = performance.now();
				report.ready = true;
			}, 0);
		});
	}
	main();
})();
