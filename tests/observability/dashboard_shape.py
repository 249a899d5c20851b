"""What a Grafana dashboard JSON and the lab's latency histogram must look like for the
course, checked without Grafana: pure functions over the parsed JSON and the histogram's
bucket bounds that return (check name, ok, detail) tuples, or PromQL, for
test_prometheus_grafana.py to report or to ask a real Prometheus."""
import re

# The breaker panel's single series: value -> (words its mapping must show, colour).
BREAKER_MAPPING = {"0": ("closed", "green"), "1": ("half_open", "yellow"), "2": ("open", "red")}


def description_parts(text):
    """{"es": ..., "en": ...} of a description written as "**es:** ...\\n\\n**en:** ..."."""
    return dict(re.findall(r"\*\*(es|en):\*\*\s*(.+?)(?=\n\n\*\*(?:es|en):\*\*|\Z)", text or "", re.S))


def queried_panels(dash):
    """The panels that query Prometheus: every panel but the rows that title a group."""
    return [p for p in dash["panels"] if p["type"] != "row"]


def panel_checks(dash, ds_uid):
    """Structure: unique integer ids, the provisioned data source everywhere, a Spanish and an
    English description on every panel (a row only titles the panels below it)."""
    out = []
    ids = [p.get("id") for p in dash["panels"]]
    out.append(("panel ids are unique integers", all(isinstance(i, int) for i in ids) and len(set(ids)) == len(ids), ids))
    for p in queried_panels(dash):
        uses = [p.get("datasource", {}).get("uid")] + [t.get("datasource", {}).get("uid") for t in p["targets"]]
        out.append((f"panel '{p['title']}' uses the provisioned data source", set(uses) == {ds_uid}, uses))
        parts = description_parts(p.get("description"))
        out.append((f"panel '{p['title']}' has an es and an en description",
                    all(len(parts.get(lang, "")) > 30 for lang in ("es", "en")), p.get("description")))
    for a in prometheus_annotations(dash):
        out.append((f"annotation '{a['name']}' uses the provisioned data source",
                    a.get("datasource", {}).get("uid") == ds_uid, a.get("datasource")))
    return out


def prometheus_annotations(dash):
    return [a for a in dash.get("annotations", {}).get("list", []) if a.get("datasource", {}).get("type") == "prometheus"]


def breaker_panel(dash):
    """The one panel that draws the breaker's state (a state timeline)."""
    found = [p for p in dash["panels"] if p["type"] == "state-timeline" and "breaker" in p["title"].lower()]
    return found[0] if len(found) == 1 else None


def breaker_checks(dash):
    """One series, its values mapped to closed green, half_open yellow and open red, and the
    transitions drawn as annotations."""
    p = breaker_panel(dash)
    if p is None:
        return [("exactly one breaker state timeline", False, [x["title"] for x in dash["panels"]])]
    options = {}
    for m in p["fieldConfig"]["defaults"].get("mappings", []):
        if m.get("type") == "value":
            options.update(m["options"])
    out = [("breaker panel draws one series", len(p["targets"]) == 1, [t["expr"] for t in p["targets"]])]
    for value, (word, colour) in BREAKER_MAPPING.items():
        got = options.get(value, {})
        out.append((f"breaker value {value} maps to {word} in {colour}",
                    word in got.get("text", "").split() and got.get("color") == colour, got))
    annotations = [a for a in prometheus_annotations(dash) if "quote_lab_breaker_transitions_total" in a.get("expr", "")]
    out.append(("breaker transitions are annotations",
                len(annotations) == 1 and annotations[0].get("enable") and "{{from}}" in annotations[0].get("titleFormat", "")
                and "{{to}}" in annotations[0].get("titleFormat", ""), annotations))
    return out


def latency_panel(dash):
    """The one panel that compares both modes' latency quantiles."""
    found = [p for p in dash["panels"] if "legacy vs resilient" in p["title"].lower()]
    return found[0] if len(found) == 1 else None


def latency_checks(dash):
    """Both modes on one panel, hence one axis: every query groups by mode, none picks one."""
    p = latency_panel(dash)
    if p is None:
        return [("one latency panel for legacy vs resilient", False, [x["title"] for x in dash["panels"]])]
    exprs = [t["expr"] for t in p["targets"]]
    quantiles = sorted(float(q) for e in exprs for q in re.findall(r"histogram_quantile\(([\d.]+)", e))
    axis_moves = [o for o in p["fieldConfig"].get("overrides", [])
                  for prop in o.get("properties", []) if prop.get("id", "").startswith("custom.axis")]
    return [("latency panel: p50, p95 and p99", quantiles == [0.5, 0.95, 0.99], exprs),
            ("latency panel: every query by mode, no mode filter",
             all("by (le, mode)" in e and "mode=" not in e for e in exprs), exprs),
            ("latency panel: one shared axis (no per-series axis)", axis_moves == [], axis_moves)]


def overload_queries(gauge_families, group="mode"):
    """The overload row: what each panel under it must query (a fragment of PromQL), grouped
    by `group` ("mode" on the lab's dashboard, "replica, mode" on the replicas'): the two
    counters, and every gauge family a strategy shows (`gauge_families`, as the lab's GET /
    lists them under `strategies[].gauges`), so a strategy added with a gauge and no panel
    fails here."""
    queries = {
        "rejections by reason (rate)": f"sum by ({group}, reason) (rate(quote_lab_overload_rejections_total[$__rate_interval]))",
        "hedges by outcome (rate)": f"sum by ({group}, outcome) (rate(quote_lab_hedges_total[$__rate_interval]))",
    }
    for family in gauge_families:
        queries[family] = f"max by ({group}) ({family})"
    return queries


def row_panels(dash, title_part):
    """The panels under the row whose title holds `title_part`, up to the next row (by
    position on the grid, as Grafana groups them); None without exactly one such row."""
    rows = [p for p in dash["panels"] if p["type"] == "row" and title_part in p["title"]]
    if len(rows) != 1:
        return None
    top = rows[0]["gridPos"]["y"]
    below = [p["gridPos"]["y"] for p in dash["panels"] if p["type"] == "row" and p["gridPos"]["y"] > top]
    bottom = min(below, default=float("inf"))
    return [p for p in queried_panels(dash) if top < p["gridPos"]["y"] < bottom]


def overload_checks(dash, gauge_families, group="mode"):
    """One row "Overload strategies" holding a panel for each of overload_queries(gauge_families, group)."""
    panels = row_panels(dash, "Overload strategies")
    if panels is None:
        return [("one row 'Overload strategies'", False, [p["title"] for p in dash["panels"] if p["type"] == "row"])]
    exprs = [t["expr"] for p in panels for t in p["targets"]]
    checks = [(f"overload row: {what}", any(q in e for e in exprs), exprs) for what, q in overload_queries(gauge_families, group).items()]
    # Every other family has its series from start; the send rate has none before the first
    # 429 (adaptive retry limits nothing until then), and its panel says so in both languages.
    send_rate = [p for p in panels if any("quote_lab_adaptive_retry_send_rate" in t["expr"] for t in p["targets"])]
    no_value = [p["fieldConfig"]["defaults"].get("noValue", "") for p in send_rate]
    checks.append(("overload row: the send rate panel says 'no 429 yet' / 'ningún 429 todavía' before the first 429",
                   len(no_value) == 1 and "no 429 yet" in no_value[0] and "ningún 429 todavía" in no_value[0], no_value))
    return checks


def bucket_of(bounds, t):
    """(lower, upper] of the histogram bucket holding t seconds (lower 0 below the first
    bound, upper None above the last finite one)."""
    lower = 0.0
    for b in sorted(bounds):
        if t <= b:
            return lower, b
        lower = b
    return lower, None


def bracket_checks(bounds, policy_times_s, short_circuit_s):
    """The policies' own times each fall in a bucket at most 20 % of the time wide, and a
    short circuit in a sub-millisecond bucket whose bounds differ by at most 2.5x: otherwise
    histogram_quantile blurs them (it interpolates linearly inside a bucket)."""
    out = []
    for t in policy_times_s:
        lower, upper = bucket_of(bounds, t)
        out.append((f"a bucket brackets {t:g} s to 20 %", upper is not None and upper - lower <= 0.2 * t, (lower, upper)))
    lower, upper = bucket_of(bounds, short_circuit_s)
    out.append((f"a sub-millisecond bucket brackets a short circuit ({short_circuit_s * 1e6:.1f} µs) to 2.5x",
                lower > 0 and upper is not None and upper <= 0.001 and upper / lower <= 2.5 + 1e-9, (lower, upper)))
    return out


def identical_answers_quantile(bounds, t, n, q):
    """PromQL for histogram_quantile(q) over a histogram with the lab's `bounds` holding `n`
    answers of exactly `t` seconds, built from literals: Prometheus's own interpolation,
    without having to make the lab answer in exactly `t`."""
    buckets = [f'label_replace(vector({n if t <= b else 0}), "le", "{b:g}", "", "")' for b in sorted(bounds)]
    buckets.append(f'label_replace(vector({n}), "le", "+Inf", "", "")')
    return f"histogram_quantile({q}, {' or '.join(buckets)})"


def visits(values):
    """The values with consecutive repeats dropped: [0, 0, 2, 2, 1, 2] -> [0, 2, 1, 2]."""
    return [v for i, v in enumerate(values) if i == 0 or v != values[i - 1]]


def in_order(seq, wanted):
    """True if `wanted` appears in `seq` as a subsequence (in order, gaps allowed)."""
    it = iter(seq)
    return all(any(x == w for x in it) for w in wanted)
