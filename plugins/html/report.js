/*
 * benchfarm's HTML reports: the page script plugins/report_html.c inlines
 * after uPlot, following plots.js (bfPage, what it draws with) in the
 * same script element. It reads the result from the JSON element
 * #bf-result and builds the page. Every text of the result (names,
 * subjects, messages) is set with textContent or drawn on a canvas,
 * never parsed as markup. What was drawn is left in window.bfReport for
 * the browser tests.
 */
(function () {
	"use strict";
	var t0 = bfPage.t0, report = bfPage.report, el = bfPage.el;
	var inert = bfPage.inert;
	var add = bfPage.add, num = bfPage.num, pct = bfPage.pct;
	var fin = bfPage.fin, word = bfPage.word, short = bfPage.short;
	var tip = bfPage.tip, hideTip = bfPage.hideTip;
	var tipHook = bfPage.tipHook, track = bfPage.track;
	var width = bfPage.width, forest = bfPage.forest;
	var samplePlots = bfPage.samplePlots;

	/* ---- a comparison ---- */

	var RANK = ["regressed", "missing", "error", "improved", "unknown",
		"same", "ungated"];
	/*
	 * The verdict as the gate reads it: a regressed or improved series
	 * of a metric that does not gate (gated: false) is "ungated",
	 * shown with the rest and never counted as a regression.
	 */
	function gateVerdict(r) {
		return r.gated === false && (r.verdict === "regressed" ||
			r.verdict === "improved") ? "ungated" : r.verdict;
	}
	function rank(v) {
		var i = RANK.indexOf(v);
		return i < 0 ? RANK.length : i;
	}

	function count(rows, verdict) {
		return rows.filter(function (r) {
			return gateVerdict(r) === verdict;
		}).length;
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
		var unk = count(rows, "unknown"), miss = count(rows, "missing");
		var set = doc.settings || {};
		/* a series one side did not report counts as a regression does */
		var missCounts = miss > 0 &&
			(set.missing_series || "fail") !== "ignore";
		var failing = [];
		if (reg) failing.push(plural(reg, "regression"));
		if (missCounts) failing.push(miss + " series missing on one side");
		var infra = (doc.status || "ok") !== "ok" ||
			(doc.errors || []).length > 0 || s.errors > 0 ||
			s.failed_runs > 0 || count(rows, "error") > 0;
		var t, cls;
		if (infra) {
			t = "Incomplete, infrastructure failures" +
				(failing.length ? "; " + failing.join(", ")
					: !rows.length ? "; nothing was compared"
						: "; nothing regressed among what was measured");
			cls = "failed";
		} else if (reg || missCounts) {
			t = failing.join(", ");
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
		/* under missing_series: ignore they are said after the verdict */
		if (miss && !missCounts)
			t += ", " + miss + " series missing on one side";
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
			(s.missing || 0) + " missing on one side",
			(s.errors || 0) + " errors"].join(", ");
		if (doc.same_build && !doc.same_commit)
			add(app, el("p", { id: "bf-same-build" }, "Same build: base " +
				"and patch ship the same code, so any difference below " +
				"is the machine; no benchmark is called regressed or " +
				"improved."));
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
			var tr = add(t, el("tr", { class: "v-" + word(gateVerdict(r)) }));
			add(tr, el("td", null, r.name));
			add(tr, el("td", null, r.metric + (r.unit ? " (" + r.unit + ")"
				: "")));
			add(tr, el("td", null, r.verdict === "missing"
				? "missing on the " + (r.missing === "base" ? "base" : "patch") +
					" side: " + (r.error || "")
				: gateVerdict(r) === "ungated" ? r.verdict + " (not gated)"
					: r.verdict));
			add(tr, el("td", { class: "num" }, num(r.base && r.base.median)));
			add(tr, el("td", { class: "num" }, num(r.patch && r.patch.median)));
			add(tr, el("td", { class: "num" }, pct(r.effect)));
			add(tr, el("td", { class: "num" }, !fin(r.ci_low) || !fin(r.ci_high)
				? "–" : pct(r.ci_low) + " … " + pct(r.ci_high)));
			add(tr, el("td", { class: "num" }, num(r.p_adjusted)));
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
					cell.title = inert("block " + b + ": " + c.status +
						" — " + (c.message || ""));
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
		var out = doc.devices_out || [];
		add(app, el("h2", null, "Infrastructure failures"));
		var box = add(app, el("div", { id: "bf-infra" }));
		if (!errs.length && !s.failed_runs && !s.reconnects && !s.aborted &&
			!out.length && !doc.infra_error) {
			add(box, el("p", { class: "muted" }, "None."));
			return;
		}
		add(box, el("p", null, (s.failed_runs || 0) + " failed runs, " +
			(s.reconnects || 0) + " reconnects, " + (s.moved_units || 0) +
			" units moved" + (s.aborted ? "; the comparison was aborted" :
			"")));
		if (doc.infra_error)
			add(box, el("p", { class: "bf-stopped" }, "Stopped early: " +
				doc.infra_error));
		/* the pool's devices that did not measure, and why */
		if (out.length) {
			var dl = add(box, el("ul", { id: "bf-devices-out" }));
			out.forEach(function (d) {
				add(dl, el("li", null, "Device out of the pool: " + d.name +
					" (" + d.health + (d.skipped ? ", skipped for this run" :
					"") + "): " + d.why));
			});
		}
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
			return rank(gateVerdict(a)) - rank(gateVerdict(b));
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
			var same = s.same_build || [];
			for (var k = 0; k < ncommits; k++) {
				var y = v[k];
				lo.push(y === null ? null : y * (1 - (sp[2 * k] || 0) / 1000));
				hi.push(y === null ? null : y * (1 + (sp[2 * k + 1] || 0) / 1000));
			}
			var mine = alerts.filter(function (a) {
				return a.suite === s.suite && a.benchmark === s.benchmark &&
					a.metric === s.metric && a.device_class === s.device_class;
			});
			/* level shifts between two measurements of one build */
			var envs = (doc.environment_shifts || []).filter(function (e) {
				return e.device_class === s.device_class &&
					(e.series || []).some(function (x) {
						return x.suite === s.suite && x.benchmark === s.benchmark &&
							x.metric === s.metric;
					});
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
				series: [{}, { label: inert(s.metric), stroke: "#1f77b4", width: 1,
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
						envs.forEach(function (e) {
							var i0 = index[e.commit_lo], i1 = index[e.commit_hi];
							if (i0 === undefined || i1 === undefined) return;
							var x0 = u_.valToPos(i0, "x", true);
							var x1 = u_.valToPos(i1, "x", true);
							c.fillStyle = "rgba(120,120,120,0.2)";
							c.fillRect(Math.min(x0, x1), u_.bbox.top,
								Math.max(Math.abs(x1 - x0), 3), u_.bbox.height);
						});
						/* a grey tick under a point of the previous
						 * point's build: a change there is the machine's */
						c.fillStyle = "#888";
						for (var k = 0; k < ncommits; k++) {
							if (!same[k]) continue;
							var xs_ = u_.valToPos(k, "x", true);
							c.fillRect(xs_ - 1, u_.bbox.top + u_.bbox.height - 6,
								2, 6);
						}
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
							num(lo[i]) + " … " + num(hi[i]) + ")" : "") +
							(same[i] ? "\nsame build as the previous point" : "");
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
					li.textContent = inert(a.direction + " " + pct(a.size) + " between " +
						String(a.commit_lo).slice(0, 12) + " and " +
						String(a.commit_hi).slice(0, 12) + ": " + a.status +
						(a.culprit ? "; bisected culprit " +
							String(a.culprit).slice(0, 12) : ""));
				});
			}
			if (envs.length) {
				var ue = add(box, el("ul", { class: "env-shifts" }));
				envs.forEach(function (e) {
					var x = e.series.filter(function (y) {
						return y.suite === s.suite && y.benchmark === s.benchmark &&
							y.metric === s.metric;
					})[0];
					add(ue, el("li", { class: "env-shift" }, "environment shift " +
						pct(x.size) + " between " + String(e.commit_lo).slice(0, 12) +
						" and " + String(e.commit_hi).slice(0, 12) +
						": the same build measured twice, the machine's, not " +
						"an alert"));
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
