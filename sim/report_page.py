"""One self-contained HTML page per simulation run (``cubenoc simulate --report FILE.html``;
docs/simulator.md "The HTML report", docs/decisions/html-report.md): the network drawn with its link loads
(sim/report_svg.py), the latency-load and accepted-load curves with the saturation point marked, the
per-source accepted throughput and latency, the hottest links, every point's figures, and the command,
configuration and tool versions that made it.

Nothing in the page is fetched: the plots are matplotlib SVG inlined (text as SVG text in the browser's own
sans-serif font), the style is one ``<style>`` element, there is no script.
"""
from __future__ import annotations

import io
import json
import math
import re
from html import escape

from . import load_point
from .plotting import pyplot
from .report_layout import MAX_DRAWN_NODES
from .report_svg import topology_svg

#: hottest directed channels listed per network
HOTTEST = 10
#: networks (or study points) drawn per page: the rest are in the table of every point (the page stays small)
MAX_DRAWN = 12


#: said above a picture of a saturated point
SATURATED_NOTE = ("saturated at this load: the link loads of the cycles it ran before the saturation detector "
                  "stopped it, which show where it saturates")


def chosen_point(points, load: float | None = None):
    """``(point, note)``: the point whose links are drawn: at ``load`` if given (and its links are known), else
    the highest load that ran unsaturated, else the first saturated one (None if no point kept its link
    loads); ``note`` says when the point is saturated or ``load`` was not usable."""
    drawn = [p for p in points if not p.saturated and p.channel_util]
    saturated = sorted((p for p in points if p.saturated and p.channel_util), key=lambda p: p.offered)
    if load is not None:
        at = [p for p in drawn + saturated if math.isclose(p.offered, load, rel_tol=0, abs_tol=1e-9)]
        if at:
            return at[0], SATURATED_NOTE if at[0].saturated else ""
    if not drawn and saturated:
        return saturated[0], ("every point saturated; drawn at the first, " if len(saturated) > 1 else "") + \
            SATURATED_NOTE
    if not drawn:
        if any(not p.saturated for p in points):
            return None, (f"per-link and per-source figures are kept for networks of up to "
                          f"{load_point.DETAIL_MAX_CHANNELS:,} "
                          f"channels (nodes x ports): this one is not drawn")
        return None, "no load point ran its window unsaturated: no link loads to draw"
    if load is not None:
        return max(drawn, key=lambda p: p.offered), (f"the chosen load {load:g} has no link loads in this run "
                                                     f"(a sweep stops at its first saturated load); drawn at the "
                                                     f"highest load that ran unsaturated instead")
    return max(drawn, key=lambda p: p.offered), ""


def saturation_of(points) -> tuple[float | None, float | None]:
    """``(first saturated offered load, highest offered load below it)`` of one network's points (None where
    there is none)."""
    sat = [p.offered for p in points if p.saturated]
    first = min(sat) if sat else None
    below = [p.offered for p in points if not p.saturated and (first is None or p.offered < first)]
    return first, max(below) if below else None


def hottest_channels(topo, channel_util, count: int = HOTTEST) -> list[tuple[int, int, int, float]]:
    """The ``count`` busiest directed channels ``(node, port, neighbour, flits/cycle)``, busiest first (ties:
    lower node, then port)."""
    rows = [(v, p, topo.neighbor(v, p)[0], u) for v, ports in enumerate(channel_util)
            for p, u in enumerate(ports) if u is not None]
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return rows[:count]


def _svg(fig, salt: str) -> str:
    """A matplotlib figure as an inline ``<svg>`` (no XML prologue or metadata; ids salted per figure)."""
    plt = pyplot()
    buf = io.StringIO()
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    return re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)


def curves_svg(nets: dict) -> str:
    """Latency and accepted load against offered load, one line per network; a dotted line and a label at
    each network's first saturated load, a ring at the load whose links are drawn."""
    plt = pyplot()
    rows = math.ceil((len(nets) + 1) / 2)           # legend rows under the panels (the networks, the diagonal)
    fig, (lat, acc) = plt.subplots(1, 2, figsize=(10, 3.6 + 0.22 * rows))
    top = 0.0
    for i, (net, (points, drawn)) in enumerate(nets.items()):
        ok = sorted((p for p in points if not p.saturated), key=lambda p: p.offered)
        x = [p.offered for p in ok]
        line, = lat.plot(x, [p.latency_mean for p in ok], "o-", ms=4, label=net)
        colour = line.get_color()
        acc.plot([p.offered for p in sorted(points, key=lambda p: p.offered)],
                 [p.accepted for p in sorted(points, key=lambda p: p.offered)], "o-", ms=4, color=colour, label=net)
        top = max([top] + [p.offered for p in points])
        first, below = saturation_of(points)
        if first is not None:
            text = f"saturated at {first:g}" + (f"\n(stable at {below:g})" if below is not None else "")
            for ax in (lat, acc):
                ax.axvline(first, color=colour, ls=":", lw=1.2)
                ax.annotate(text, (first, 0.97 - 0.16 * i), xycoords=("data", "axes fraction"), ha="right",
                            va="top", fontsize=8, color=colour, xytext=(-3, 0), textcoords="offset points")
        if drawn is not None:
            lat.plot([drawn.offered], [drawn.latency_mean], "o", ms=11, mfc="none", color=colour)
            acc.plot([drawn.offered], [drawn.accepted], "o", ms=11, mfc="none", color=colour)
    acc.plot([0, top], [0, top], color="#999", lw=0.8, ls="--", label="accepted = offered")
    lat.set_ylabel("mean packet latency (cycles)")
    acc.set_ylabel("accepted load (flits/node/cycle)")
    for ax in (lat, acc):
        ax.set_xlabel("offered load (flits/node/cycle)")
        ax.grid(True, alpha=0.3)
        ax.set_xlim(left=0)
    lat.set_ylim(bottom=0)
    acc.set_ylim(bottom=0)
    handles, labels = acc.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle("dotted: first saturated load; ring: the load drawn below", fontsize=9)
    fig.tight_layout(rect=(0, 0.22 * rows / (3.6 + 0.22 * rows) + 0.02, 1, 1))
    return _svg(fig, "curves")


def per_source_svg(point, uid: str) -> str:
    """Each source's accepted throughput and mean packet latency at ``point`` (bars), with their means."""
    plt = pyplot()
    N = len(point.source_accepted)
    fig, (acc, lat) = plt.subplots(1, 2, figsize=(10, 2.8))
    got = [g if g is not None else 0.0 for g in point.source_accepted]
    late = [x if x is not None else 0.0 for x in point.source_latency]
    for ax, ys, what in ((acc, got, "accepted (flits/cycle)"), (lat, late, "mean latency (cycles)")):
        ax.bar(range(N), ys, width=0.85, color="#4c78a8")
        known = [y for y in ys if y]
        if known:
            ax.axhline(sum(known) / len(known), color="#e45756", lw=1, label=f"mean {sum(known) / len(known):.3g}")
            ax.legend(fontsize=8, loc="lower right")
        ax.set_xlabel("source node")
        ax.set_ylabel(what)
        ax.set_xlim(-1, N)
    fig.suptitle(f"per source at offered {point.offered:g}", fontsize=9)
    fig.tight_layout()
    return _svg(fig, f"source-{uid}")


def _num(x, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else format(x, fmt)


STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1040px;color:#222;padding:0 1em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.8em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{padding:2px 8px;border-bottom:1px solid #eee;
text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
pre{background:#f6f6f6;padding:.6em;overflow:auto;font-size:12px}.note{color:#8a4b00}svg{max-width:100%;height:auto}
.fig{margin:.6em 0}"""


def report_html(results, models, *, command: str, config: dict, provenance: dict, load: float | None = None,
                title: str = "", notes=(), curves: bool = True, extra: str = "") -> str:
    """The page. ``results``: the run's :class:`~.simulator.PointResult` list; ``models``: network label ->
    its topology; ``config``: the resolved configuration; ``provenance``: date, machine and tool versions;
    ``notes``: lines said under the title (the demo's verdict); ``curves``: draw the load curves (a run of
    one load point has none); ``extra``: HTML placed before the table of every point (a study's own table)."""
    by_net: dict = {}
    for p in results:
        by_net.setdefault(p.network, []).append(p)
    chosen = {net: chosen_point(points, load) for net, points in by_net.items()}
    out = [f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{escape(title or 'cubenoc report')}</title>"
           f"<style>{STYLE}</style></head><body>",
           f"<h1>{escape(title or 'cubenoc simulate')}</h1>",
           f"<p>{escape(', '.join(by_net))}: {len(results)} load point(s), made "
           f"{escape(str(provenance.get('date', '')))}.</p>"]
    summary = []
    for net, points in by_net.items():
        first, below = saturation_of(points)
        summary.append(f"<li>{escape(net)}: " + (f"saturated at offered {first:g}" + (
            f", stable at {below:g}" if below is not None else "") if first is not None
            else f"no saturation up to offered {max(p.offered for p in points):g}") + "</li>")
    out += [f"<p class=note-line>{escape(n)}</p>" for n in notes]
    if curves:
        out.append("<ul class=saturation>" + "".join(summary) + "</ul>")
        out.append("<h2>Latency and accepted load</h2><div class=fig>"
                   + curves_svg({n: (pts, chosen[n][0]) for n, pts in by_net.items()}) + "</div>")
    for i, (net, points) in enumerate(by_net.items()):
        if i == MAX_DRAWN:
            out.append(f"<p class=note>{len(by_net) - MAX_DRAWN} more network(s) or points are not drawn (at most "
                       f"{MAX_DRAWN} per page); their figures are in the table below.</p>")
            break
        point, note = chosen[net]
        topo = models[net]
        out.append(f"<h2>{escape(net)}: the network and its link loads</h2>")
        if note:
            out.append(f"<p class=note>{escape(note)}</p>")
        if point is None:
            continue
        out.append(f"<p>At offered load <b class=drawn-load>{point.offered:g}</b> flits/node/cycle "
                   f"(accepted {_num(point.accepted, '.3f')}, mean latency {_num(point.latency_mean, '.2f')} cycles): "
                   f"{topo.num_nodes} nodes, {topo.num_links} links; hover over a link for its two directions.</p>")
        out.append("<div class=fig>" + topology_svg(topo, point.channel_util, f"{net} at {point.offered:g}",
                                                    uid=f"t{i}") + "</div>")
        out.append(_hottest_table(topo, point))
        out.append(_fairness(point, f"s{i}"))
    out.append(extra)
    out.append("<h2>Every point</h2>" + _points_table(results))
    out.append("<h2>How this was made</h2><p>Command:</p><pre class=command>" + escape(command) + "</pre>"
               "<p>Configuration (resolved):</p><pre class=config>" + escape(json.dumps(config, indent=1, default=str))
               + "</pre><p>Tools and machine:</p><pre class=tools>"
               + escape(json.dumps(provenance, indent=1, default=str)) + "</pre>")
    out.append("</body></html>")
    return "\n".join(out)


def _hottest_table(topo, point) -> str:
    rows = "".join(f"<tr><td>{escape(topo.format_node(v))} \u2192 {escape(topo.format_node(u))}</td>"
                   f"<td>{escape(topo.port_name(v, p))}</td><td>{x:.4f}</td></tr>"
                   for v, p, u, x in hottest_channels(topo, point.channel_util))
    return (f"<p>The {HOTTEST} busiest directed links (flits/cycle over the measured cycles; mean over all links "
            f"{point.link_util_mean:.4f}):</p><table class=hottest><tr><th>link</th><th>port</th>"
            f"<th>flits/cycle</th></tr>{rows}</table>")


def _fairness(point, uid: str) -> str:
    got = [g for g in point.source_accepted if g is not None]
    late = [x for x in point.source_latency if x is not None]
    if not point.source_latency and point.saturated:
        return "<p class=note>per-source figures are kept for points that ran their window unsaturated</p>"
    if not got:
        return "<p class=note>no source sent a packet in the window</p>"
    lo, hi = min(got), max(got)
    text = (f"<p class=fairness>Per source: accepted {lo:.4f} .. {hi:.4f} flits/cycle (max/min "
            f"{_num(hi / lo if lo > 0 else math.inf, '.2f')}), mean latency "
            f"{_num(min(late) if late else None, '.2f')} .. {_num(max(late) if late else None, '.2f')} cycles.</p>")
    if len(point.source_accepted) > MAX_DRAWN_NODES:            # a bar per source: too many to see
        return text
    return text + "<div class=fig>" + per_source_svg(point, uid) + "</div>"


def table_html(header, rows, cls: str = "study") -> str:
    """A plain table of ``rows`` (numbers to 4 significant digits)."""
    def cell(x):
        if isinstance(x, float):
            return _num(x, ".4g")
        return escape("-" if x is None else str(x))
    return (f"<table class={cls}><tr>" + "".join(f"<th>{escape(str(h))}</th>" for h in header) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{cell(x)}</td>" for x in r) + "</tr>" for r in rows) + "</table>")


def _points_table(results) -> str:
    head = ("<tr><th>network</th><th>offered</th><th>accepted</th><th>latency</th><th>p99</th><th>hops</th>"
            "<th>max link util</th><th>note</th></tr>")
    rows = []
    for p in results:
        rows.append(f"<tr><td>{escape(p.network)}</td><td>{p.offered:g}</td><td>{_num(p.accepted, '.3f')}</td>"
                    f"<td>{_num(p.latency_mean, '.2f')}</td><td>{_num(p.latency_p99, '.0f')}</td>"
                    f"<td>{_num(p.hops_mean, '.2f')}</td><td>{_num(p.link_util_max, '.3f')}</td>"
                    f"<td>{'saturated: ' if p.saturated else ''}{escape(p.message if p.message != 'ok' else '')}"
                    f"</td></tr>")
    return "<table class=points>" + head + "".join(rows) + "</table>"
