"""The explorer's two main figures: every head at once (one image; a click on a map zooms that head) and the zoomed
head with exact weights, its automatic labels and the roles measured on held-out text. On a class's first view both
are drawn as inline images first (runtime.first_view)."""
import streamlit as st

from app_pages import _export, _present
from app_pages.views import explorer_why
from app_pages.views.explorer_state import ExplorerState, Zoom, zoom_of
from i18n import _, ngettext
from labels import file_label, head_label
from model.analysis import head_roles, head_stats
from runtime import first_view
from viz import export, grid
from viz.grid import GridImage


def _pick_cell():
    """Grid click -> zoom that layer and head."""
    points = st.session_state["explorer_grid"]["selection"]["points"]
    for p in points:
        if p.get("curve_number") == 1 and isinstance(p.get("customdata"), list):
            st.session_state.explorer_layer, st.session_state.explorer_head = map(int, p["customdata"][:2])
            return


def cell_text(state: ExplorerState) -> list[list[str]]:
    """[l][h] the hover text of each head's map: its entropy and distance, its labels, its measured roles."""
    L, H, _N = state.shape
    measured = state.measured
    roles = [[measured["heads"].get(head_label(lay, h), {}).get("roles", []) if measured else [] for h in range(H)]
             for lay in range(L)]
    cell, measured_cell = _("entropy {entropy:.2f} · distance {distance:.1f}"), _("measured: {roles}")
    return [[cell.format(entropy=state.stats["entropy"][lay, h], distance=state.stats["mean_distance"][lay, h])
             + (f"<br>{', '.join(_(x) for x in state.labels[lay][h])}" if state.labels[lay][h] else "")
             + ("<br>" + measured_cell.format(roles=", ".join(map(head_roles.role_label, roles[lay][h])))
                if roles[lay][h] else "")
             for h in range(H)] for lay in range(L)]


def grid_section(state: ExplorerState) -> GridImage:
    """All heads in one image, the zoomed one outlined. Returns the image (its PNG is a download too)."""
    L, H, N = state.shape
    st.subheader(_("All heads"))
    grid_fig, grid_img = grid.plot_grid(state.weights, log=state.log, picked=(state.layer, state.head),
                                        cell_text=cell_text(state))
    first_view.figure(
        "explorer-grid", state.visit, lambda: grid_img.src,
        _("All heads: {layers} layers × {heads} heads").format(layers=L, heads=H),
        lambda: _export.chart(grid_fig, key="explorer_grid", on_select=_pick_cell, selection_mode="points",
                              width="stretch", name=(state.name, "all_heads"), title=_("All heads"),
                              caption=state.caption()))
    size = dict(layers=L, heads=H, px=grid_img.cell, kb=len(grid_img.png) / 1024)
    st.caption(_("One image of {layers}×{heads} maps, {px} px each ({kb:,.0f} KB, averaged over blocks of "
                 "tokens to fit the screen). Click a map to zoom it.").format(**size) if grid_img.cell < N else
               _("One image of {layers}×{heads} maps, {px} px each ({kb:,.0f} KB). Click a map to zoom it.")
               .format(**size))
    return grid_img


def _zoom_image(zoom: Zoom, title: str, log: bool) -> str:
    """The zoomed head as a data: URL for a class's first view: the labelled SVG, or the PNG when too large."""
    if max(zoom.matrix.shape) <= export.SVG_MAX_TOKENS:
        return first_view.svg_src(export.heatmap_svg(zoom.matrix, q_labels=zoom.labels, k_labels=zoom.labels,
                                                     title=title, log=log))
    return first_view.png_src(export.heatmap_png(zoom.matrix, log=log))


def _zoom_chart(state: ExplorerState, zoom: Zoom, title: str):
    """The zoomed head as an interactive chart; cells take clicks while "Why this weight" is open."""
    where = head_label(state.layer, state.head)
    picked = zoom.rows.index(state.picked) if state.picked in zoom.rows else None     # the picked token's row
    fig = grid.plot_zoom(zoom.matrix, q_labels=zoom.labels, k_labels=zoom.labels, log=state.log, picked=picked,
                         title=title if _present.mode() else None)      # presenting: the head named in the figure
    fig, clicks = explorer_why.clickable_zoom(state, fig, zoom)
    _export.chart(fig, key="explorer_zoom", width="stretch", name=(state.name, file_label(state.layer, state.head),
                                                                   "attention"),
                  **clicks, title=title, caption=state.caption(where))


def zoom_section(state: ExplorerState):
    """The zoomed head with exact weights (special tokens hidden when asked), then what is known about it."""
    where = head_label(state.layer, state.head)
    if not _present.mode():                   # presenting, the figure's title names the head: the map gets the room
        st.subheader(where)
    zoom = zoom_of(state)
    if state.hide and zoom.removed is None:
        st.warning(_("Every token is special; nothing is left to show."))
    elif zoom.removed is not None:
        st.info(_("Special tokens hidden. Each row is renormalised: divided by the weight it puts on the "
                  "tokens still shown (on average {removed:.1%} of the weight went to hidden tokens), so "
                  "rows sum to 1.").format(removed=zoom.removed))
    if zoom.labels:
        title = (_("{head} attention, special tokens hidden") if state.hide else _("{head} attention")).format(
            head=where)
        first_view.figure("explorer-zoom", state.visit, lambda: _zoom_image(zoom, title, state.log), title,
                          lambda: _zoom_chart(state, zoom, title))
    N = state.shape[2]
    if N > 128 and not state.log:
        st.caption(_("Over {n} keys a row's weights are small (uniform would be {uniform:.4f}), so a linear "
                     "scale looks pale: turn on **Log colour**, or zoom in with the chart's tools.").format(
            n=N, uniform=1 / N))
    _what_is_known(state, where)


def _what_is_known(state: ExplorerState, where: str):
    """The zoomed head's automatic labels on this text and the roles measured on held-out text."""
    labels = state.labels[state.layer][state.head]
    if labels:
        st.markdown(_("**Automatic labels:** {labels}").format(
            labels="; ".join(_("{label} ({rule})").format(label=_(x), rule=head_stats.rule(x)) for x in labels)))
    if state.measured:
        found = head_roles.evidence(state.measured, where)
        n = state.measured["passages"]
        st.markdown(ngettext("**Measured on {n} held-out passage of real text:** {roles}",
                             "**Measured on {n} held-out passages of real text:** {roles}", n).format(
            n=n, roles="; ".join(found) or _("none (no role reaches its threshold)")))

