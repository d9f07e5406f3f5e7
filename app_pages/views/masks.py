"""Masks & sparse attention: what each mask lets a token see, how far information travels through k layers,
what a pattern does to a trained model's attention and output, and what dense and sparse attention cost
as the input grows (textbook 12.9: windows, dilation, global tokens)."""
from collections import Counter

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _heavy, _predict, _present, _resources, _runs, _url
from app_pages._markup import visible
from i18n import N_, _, ngettext
from labels import file_label, head_label, head_only, layer_label
from model import jobs
from model.analysis import cost, reach
from model.data import bpe, text_input
from model.data import course_world as corpus
from model.engine import masks
from model.engine.errors import InputError
from viz import heatmap
from viz import masks as viz
from viz.slide import caption_line

MAX_DRAW_N = 512
SPARSE_MODEL = "sparse_encoder"
MAX_POSITIONS = 64
SIZES = [256, 512, 1024, 2048, 4096, 8192, 16384]
TABLE_N = 4096                           # the cost table's length
TABS = [N_("Pattern lab"), N_("Receptive field"), N_("Live effect"), N_("Cost")]
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
LAB_WIDTH = 2                            # the lab's window width (each side), also the prediction's
QUERY, KEY = 5, 9                        # the prediction: which masks let token 5 see token 9
CORNER = 16                              # the masks' corner drawn after the prediction: tokens 0..15
ASKED = [k for k in masks.PATTERNS if k != "swin"]        # Swin's windows live on an image grid
SHORT = {"width": "w", "dilation": "d", "positions": N_("global"), "n_global": "g", "per_row": "r", "seed": N_("seed"),
         "stride": "s", "block": "b", "length": N_("real length")}


def parse_positions(text: str, n: int) -> tuple[int, ...]:
    """'0, 7' -> (0, 7); raises InputError with a readable message."""
    try:
        pos = tuple(sorted({int(p) for p in text.replace(";", ",").split(",") if p.strip()}))
    except ValueError:
        raise InputError(_("Global positions must be whole numbers separated by commas (got {text}).").format(
            text=repr(text[:40])))
    if len(pos) > MAX_POSITIONS or any(p < 0 or p >= n for p in pos):
        raise InputError(_("Give at most {most} positions between 0 and {last}.").format(most=MAX_POSITIONS,
                                                                                       last=n - 1))
    return pos


def pattern_controls(prefix: str, n: int, default: str, overrides: dict | None = None, causal_box: bool = True):
    """Pattern select + its parameters. Returns (key, params dict, causal)."""
    keys = list(masks.PATTERNS)
    # the address names a pattern by its title (?masks_A_pattern=Dilated+window) and each parameter by its name
    names = {k: pattern_name(k) for k in keys}      # shown names, translated now (format_func may run later)
    _url.stale_link(f"{prefix}_pattern", list(names.values()), _("the pattern"), names[default])
    key = st.selectbox(_("Pattern"), keys, index=keys.index(default), key=f"{prefix}_pattern", format_func=names.get,
                       bind=BIND, persist_state=KEEP)
    pat = masks.PATTERNS[key]
    st.caption(_(pat.explanation))
    params, given = {}, {**(overrides or {})}
    cols = st.columns(max(1, len(pat.params)))
    for col, p in zip(cols, pat.params):
        with col:
            if isinstance(p.default, tuple):
                shown = ", ".join(map(str, given.get(p.name, p.default)))
                text = st.text_input(_(p.label), shown, key=f"{prefix}_{p.name}",
                                     bind=_url.text_bind(f"{prefix}_{p.name}"), persist_state=KEEP)
                try:
                    params[p.name] = parse_positions(text, n)
                except InputError as e:
                    st.error(str(e))
                    params[p.name] = p.default
            else:
                start = int(given.get(p.name, p.default))
                _url.stale_number(f"{prefix}_{p.name}", p.lo, p.hi, _(p.label), start)
                params[p.name] = int(st.number_input(_(p.label), p.lo, p.hi, start, 1, key=f"{prefix}_{p.name}",
                                                     bind=BIND, persist_state=KEEP))
    causal = pat.can_be_causal and causal_box and st.checkbox(_("causal version"), key=f"{prefix}_causal", bind=BIND,
                                                              persist_state=KEEP)
    return key, params, causal


def pattern_name(key: str) -> str:
    """A pattern's title in the interface's language."""
    return _(masks.PATTERNS[key].title)


def asked_params(key: str) -> dict:
    """A pattern's parameters in the prediction: its defaults, with the lab's window width; the chosen global
    tokens are token 0 and the asked key (say, the first words of two sentences), so the two kinds of global
    token give different answers."""
    p = masks.PATTERNS[key].defaults()
    p = {**p, "width": LAB_WIDTH} if "width" in p else p
    return {**p, "positions": (0, KEY)} if "positions" in p else p


def added(key: str, params: dict) -> int:
    """The tokens a pattern puts in front of the text's N (extra global tokens: g; every other pattern: 0)."""
    return masks.PATTERNS[key].added(**params)


def in_frame(m: np.ndarray, g: int, most: int) -> np.ndarray:
    """A mask with g added tokens in front, drawn among `most` added tokens: the tokens it lacks are rows and
    columns of False in front, so two masks of different sides line up token by token."""
    return np.pad(m, ((most - g, 0), (most - g, 0)))


def shape_note(key: str, n: int, params: dict) -> str | None:
    """What the two kinds of global token do to the matrix, said under the mask (None for other patterns)."""
    if key == "global":
        return _("Chosen global tokens: tokens {positions} of the N = {n} are made global; no token is added, the "
                 "mask stays {n} × {n}.").format(positions=", ".join(map(str, params["positions"])), n=n)
    if key == "extra_global":
        g = added(key, params)
        return ngettext("Extra global tokens: {g} new token (G0) is put in front of the N = {n}, so the mask is "
                        "(N + g) × (N + g) = {side} × {side}; the text's tokens keep their window and numbers.",
                        "Extra global tokens: {g} new tokens (G0…) are put in front of the N = {n}, so the mask is "
                        "(N + g) × (N + g) = {side} × {side}; the text's tokens keep their window and numbers.",
                        g).format(g=g, n=n, side=n + g)
    return None


def asked_label(key: str) -> str:
    """'Dilated window · w = 2, d = 2': the title and the parameters the prediction uses."""
    params = ", ".join(f"{_(SHORT[p])} = {', '.join(map(str, v)) if isinstance(v, tuple) else v}"
                       for p, v in asked_params(key).items())
    return pattern_name(key) + (f" · {params}" if params else "")


def predict_section(n: int):
    """Predict first: which patterns let token QUERY see token KEY at this N; the answer is read from the masks
    themselves (entry [QUERY, KEY]), then their corners are drawn with that cell outlined."""
    if n <= KEY:
        st.caption(_("At N ≥ {n} the lab asks which masks let token {query} see token {key}.").format(
            n=KEY + 1, query=QUERY, key=KEY))
        return
    built_masks = {k: masks.build(k, n, **asked_params(k)) for k in ASKED}
    front = {k: added(k, asked_params(k)) for k in ASKED}            # the text's token i is row i + front
    answer = [k for k, m in built_masks.items() if m[QUERY + front[k], KEY + front[k]]]
    gap = KEY - QUERY
    question = _("With N = {n}, which masks let token **{query}** (the query) see token **{key}** (the key)? "
                 "Each pattern with the parameters named; the masks appear once you have predicted.").format(
        n=n, query=QUERY, key=KEY)
    explain = _("Token {query} may attend token {key} where row {query}, column {key} of the mask is True (outlined "
                "below). The key is {gap} positions ahead: a causal mask never allows it, a window needs w ≥ {gap}, "
                "a dilation or a stride must land on {gap}, a block must hold both, random keys are a draw.").format(
        query=QUERY, key=KEY, gap=gap)
    explain += " " + _("The two kinds of global token differ: chosen global tokens are tokens of the text (here {key} "
                       "is one), so {query} sees {key} directly; an extra global token is a new token G0 in front, "
                       "so {query} and {key} meet only through it, one layer later.").format(query=QUERY, key=KEY)
    if _predict.predict("masks_predict", question, ASKED, answer, explain, format_func=asked_label, multi=True,
                        identity=n):
        corner = min(n, CORNER)
        _export.chart(viz.plot_mask_grid({short_name(k): m[:corner + front[k], :corner + front[k]]
                                          for k, m in built_masks.items()}, mark=(QUERY, KEY),
                                         added={short_name(k): g for k, g in front.items() if g},
                                         title=_("Tokens 0–{last} of each {n} × {n} mask (and G0, the token "
                                                 "extra global tokens add)").format(last=corner - 1, n=n)),
                      key="masks_predict_grid", name=("masks", f"N{n}", "token5_to_token9"),
                      caption=caption_line(f"N = {n}"))


def built(key: str, n: int, params: dict, causal: bool):
    try:
        return masks.build(key, n, causal, **params)
    except InputError as e:
        st.error(str(e))
        return None


def short_name(key: str) -> str:
    """A pattern's title without its bracket ("Causal (decoder)" -> "Causal"), in the interface's language."""
    return pattern_name(key).split(" (")[0].split("（")[0]


def layers(k: int) -> str:
    """1 -> "1 layer", 2 -> "2 layers"."""
    return ngettext("{n:,} layer", "{n:,} layers", k).format(n=k)


def describe(c: reach.Connectivity) -> str:
    if c.everything:
        return _("every token reaches every other after **{layers}**").format(layers=layers(c.layers))
    return _("never connects everything: after **{layers}** it reaches {share} of the pairs and more layers add "
             "nothing").format(layers=layers(c.layers), share=f"{c.reachable:.1%}")


def piece_labels(tokenizer, text: str, rule: str, tokens: tuple[str, ...]) -> list[str]:
    """Readable names for the tokens a run read from `text`: BPE pieces with their whitespace drawn, and a
    character split into byte pieces shown as itself and which part each piece is ("欢 1/2", "欢 2/2")
    instead of "<0xE6><0xAC>"; a word tokenizer's tokens as they are."""
    if not isinstance(tokenizer, bpe.BPETokenizer):
        return list(tokens)
    enc = tokenizer.encode(text, **text_input.RULES[rule])
    parts, seen, out = Counter(enc.spans), Counter(), []
    for piece, (a, b) in zip(enc.pieces[:len(tokens)], enc.spans):
        if a == b or piece == enc.text[a:b]:                 # a special token, or a piece of whole characters
            out.append(visible(piece))
            continue
        seen[(a, b)] += 1
        out.append(f"{visible(enc.text[a:b])} {seen[(a, b)]}/{parts[(a, b)]}")
    return out


def evaluation(meta: dict) -> str | None:
    """The shipped evaluation of a sparse model, from its meta["metrics"], as one sentence (None if absent)."""
    m = meta.get("metrics", {})
    if "mlm_accuracy" not in m:
        return None
    bpe_model = meta.get("tokenizer", {}).get("type") == "bpe"
    values = dict(command=f"`python -m model.evaluate --json {SPARSE_MODEL}`",
                  hidden=f"{m.get('eval_masked_tokens', 0):,}",
                  n=m.get("eval_tokens_per_sequence", "?"), acc=f"{m['mlm_accuracy']:.1%}",
                  width=m.get("pattern_width", "?"), g=m.get("pattern_global_tokens", "?"),
                  full=f"{m.get('mlm_accuracy_full_attention', 0):.1%}",
                  baseline=f"{m.get('mlm_baseline_most_frequent', 0):.1%}")
    if bpe_model:
        line = _("Evaluation on held-out real text it never trained on ({command}): of {hidden} pieces hidden behind "
                 "[MASK] in {n}-piece inputs, it recovers **{acc}** under its own pattern (window ±{width} plus {g} "
                 "extra global token, [CLS])")
        full = _(", **{full}** when the same weights attend to all {n} pieces (it never trained that way)")
        baseline = _(", against **{baseline}** for always guessing the most frequent piece")
    else:
        line = _("Evaluation on held-out text ({command}): of {hidden} words hidden behind [MASK] in {n}-word "
                 "inputs, it recovers **{acc}** under its own pattern (window ±{width} plus {g} extra global token, "
                 "[CLS])")
        full = _(", **{full}** when the same weights attend to all {n} words (it never trained that way)")
        baseline = _(", against **{baseline}** for always guessing the most frequent word")
    line += full if "mlm_accuracy_full_attention" in m else ""
    line += baseline if "mlm_baseline_most_frequent" in m else ""
    return _("{evaluation}.").format(evaluation=line.format(**values))


def pattern_caption(n: int, side: str, chosen: tuple) -> str:
    """The slides' caption: N, the pattern and its parameters."""
    key, params, causal, _seed = chosen
    title = _("{pattern} (causal)").format(pattern=pattern_name(key)) if causal else pattern_name(key)
    return caption_line(f"N = {n}", f"{side}: {title}", ", ".join(f"{k} {v}" for k, v in sorted(params.items())))


def lab_section(shown: bool = True):
    """The pattern lab (drawn on every run: the receptive field reads its patterns); shown: its tab is open."""
    st.subheader(_("Pattern lab"))
    _url.stale_number("masks_n", 4, MAX_DRAW_N, _("sequence length"), 32)
    n = int(st.number_input(_("Sequence length N"), 4, MAX_DRAW_N, 32, 4, key="masks_n", bind=BIND,
                            persist_state=KEEP,
                            help=_("Drawn up to N = {most}; the cost section goes to 16k.").format(most=MAX_DRAW_N)))
    predict_section(n)
    left, right = st.columns(2)
    chosen = {}
    for side, col, default in (("A", left, "window"), ("B", right, "extra_global")):
        with col, st.container(border=True):
            st.markdown(_("**Pattern {side}**").format(side=side))
            key, params, causal = pattern_controls(f"masks_{side}", n, default, dict(width=LAB_WIDTH))
            chosen[side] = (key, params, causal, built(key, n, params, causal))
    cols = ((_present.main() if shown else None) or st).columns(2)      # presenting: the two masks first
    for col, side in zip(cols, "AB"):
        key, params, causal, m = chosen[side]
        if m is None:
            continue
        with col:
            name = _("{pattern} (causal)").format(pattern=pattern_name(key)) if causal else pattern_name(key)
            _export.chart(viz.plot_mask(m, title=f"{side}: {name}", added=added(key, params)),
                          key=f"masks_plot_{side}",
                          name=("mask", side, key, f"N{n}") + (("causal",) if causal else ()),
                          caption=pattern_caption(n, side, chosen[side]))
            if note := shape_note(key, n, params):
                st.caption(note)
            st.metric(_("density of {side} (allowed ÷ all pairs)").format(side=side), f"{reach.density(m):.2%}",
                      help=_("{allowed:,} of {pairs:,} pairs").format(allowed=int(m.sum()), pairs=m.size))
    a, b = chosen["A"][3], chosen["B"][3]
    if a is not None and b is not None:
        ga, gb = (added(chosen[side][0], chosen[side][1]) for side in "AB")
        most = max(ga, gb)
        a, b = in_frame(a, ga, most), in_frame(b, gb, most)             # the same tokens in the same rows
        left, right = st.columns(2)
        with left:
            _export.chart(viz.plot_mask_difference(a, b, title=_("A vs B"), added=most), key="masks_plot_diff",
                          name=("mask", chosen["A"][0], "vs", chosen["B"][0], f"N{n}"),
                          caption=pattern_caption(n, "A", chosen["A"]) + " · " + pattern_caption(n, "B", chosen["B"]))
            if ga != gb:
                st.caption(_("The added tokens (G…) exist in one mask only: their pairs count as only in that one."))
        with right:
            st.metric(_("pairs that differ"), f"{int((a != b).sum()):,}")
            st.metric(_("only in A"), f"{int((a & ~b).sum()):,}")
            st.metric(_("only in B"), f"{int((b & ~a).sum()):,}")
    return n, chosen


def reach_section(n: int, chosen: dict):
    st.subheader(_("Receptive field: how far information travels through k layers"))
    st.caption(_("Entry [i, j] is dark when token j's input can influence token i's output after k layers: the "
                 "boolean matrix power (mask ∨ I)ᵏ (the residual connection keeps each token's own input)."))
    _url.stale_number("masks_k", 1, 16, _("layers"), 2)
    k = st.slider(_("layers k"), 1, 16, 2, key="masks_k", bind=BIND, persist_state=KEEP)
    max_layers = 32 if n <= 256 else 12
    cols, shares = (_present.main() or st).columns(2), {}
    for col, side in zip(cols, "AB"):
        key, params, causal, m = chosen[side]
        if m is None:
            continue
        cover = _runs.mask_coverage(key, n, tuple(sorted(params.items())), causal, max_layers)
        m, conn, share = cover.mask, cover.connectivity, cover.share
        shares[f"{side}: {pattern_name(key)}"] = share
        with col:
            _export.chart(viz.plot_reach(reach.receptive_field(m, k), added=added(key, params),
                                         title=_("{side} after {layers}").format(side=side, layers=layers(k))),
                          key=f"masks_reach_{side}", name=("reach", side, key, f"N{n}", f"{k}layers"),
                          caption=pattern_caption(n, side, chosen[side]))
            st.markdown(_("**{side}**: {what}").format(side=side, what=describe(conn)))
    if shares:
        _export.chart(viz.plot_coverage(shares, title=_("Share of pairs connected after k layers")), key="masks_cov",
                      name=("reach", "coverage", f"N{n}"),
                      caption=caption_line(f"N = {n}", *(f"{side}: {pattern_name(chosen[side][0])}"
                                                         for side in "AB" if chosen[side][3] is not None)))


def live_section():
    st.subheader(_("Live effect on a trained model"))
    models = _resources.text_models()
    if not models:
        st.warning(_("No shipped text model was found in assets/."))
        return
    default = SPARSE_MODEL if SPARSE_MODEL in models else _resources.selected_text_model()
    _url.stale_link("masks_model", models, _("the model"), default)
    name = st.selectbox(_("Model"), models, index=models.index(default), key="masks_model", bind=BIND,
                        persist_state=KEEP,
                        help=_("{model} was trained under its own sparse pattern: a sliding window plus [CLS] as an "
                               "extra global token.").format(model=SPARSE_MODEL))
    model, meta = _resources.model_or_stop(name)
    sparse = meta.get("config", {}).get("sparse")
    if sparse:
        source = (_("real text (docs/data-card.md) in byte-level BPE pieces") if meta["tokenizer"].get("type") == "bpe"
                  else _("the generated course-world corpus"))
        st.caption(_("**{model}** is a masked-LM encoder trained on {source}, only ever under a window of ±{width} "
                     "tokens plus {g} extra global token: [CLS], put in front of the text and standing for no word "
                     "(the textbook's extra kind, 12.9); its own pattern is preselected below.").format(
            model=name, source=source, width=sparse["width"], g=sparse["n_global"]))
    text = _resources.clip_text(st.text_area(
        _("Text"), corpus.PARAGRAPH, key="masks_text", height=90, bind=_url.text_bind("masks_text"),
        persist_state=KEEP, help=_("Any text, English or Chinese, up to {chars:,} characters; the model reads at "
                                   "most {tokens} tokens.").format(chars=_resources.MAX_TEXT_CHARS,
                                                                   tokens=model.config.max_len)))
    _url.long_text_note("masks_text")
    if not text.strip():
        st.info(_("Type some text to run the model."))
        return
    rule = _resources.text_rule(name)
    front = text_input.FRONT[rule]
    read = text_input.encode(_resources.load_tokenizer(name), text, rule).tokens[:model.config.max_len]
    own = dict(width=sparse["width"], n_global=sparse["n_global"]) if sparse else dict(width=3, n_global=len(front))
    own["positions"] = text_input.sentence_starts(read)[:MAX_POSITIONS] or (0,)   # chosen: each sentence's start
    decoder = model.config.kind == "decoder"
    key, params, causal = pattern_controls("masks_live", model.config.max_len, "extra_global" if sparse else "window",
                                           own, causal_box=not decoder)
    if decoder:
        st.caption(_("A decoder keeps its causal mask: the pattern is applied below the diagonal."))
    if key == "global":
        st.caption(_("Chosen global tokens start at the first token of each sentence (the textbook's example), "
                     "words of the text."))
    elif masks.PATTERNS[key].adds:
        if added(key, params) != len(front):
            st.error(_("Extra global tokens are tokens put in front of the text. {model} reads {k} there ({tokens}), "
                       "a token it learned that stands for no word: set g = {k}. Any other number would give it "
                       "tokens it never saw; chosen global tokens make words of the text global instead.").format(
                model=name, k=len(front), tokens=", ".join(front) or "—"))
            return
        st.caption(_("The extra global token here is the model's own {tokens}, the token its text rule puts in front "
                     "of the text.").format(tokens=", ".join(front)))
    try:
        runs = _runs.masked_runs(name, _resources.device(), text, key, tuple(sorted(params.items())), causal)
    except InputError as e:
        st.error(str(e))
        return
    run, full, mask = runs.masked, runs.full, runs.mask
    for note in run.notices:
        st.info(note)
    if any(run.unknown):
        st.warning(_("**{model}** has a word vocabulary; not in it, so read as [UNK]: {words}").format(
            model=name, words=", ".join(dict.fromkeys(t for t, u in zip(run.tokens, run.unknown) if u))))
    tokenizer = _resources.load_tokenizer(name)
    labels = piece_labels(tokenizer, text, _resources.text_rule(name), run.tokens)
    blocked = run.weights[:, :, ~mask]                                       # (L, H, blocked pairs)
    h_mask, h_full = run.hidden[-1], full.hidden[-1]                         # (N, C)
    change = np.linalg.norm(h_mask - h_full, axis=1) / np.maximum(np.linalg.norm(h_full, axis=1), 1e-12)
    flips = int((run.logits.argmax(-1) != full.logits.argmax(-1)).sum())
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(_("tokens N"), len(run.tokens))
    c2.metric(_("density of the mask"), f"{mask.mean():.1%}")
    largest = float(blocked.max()) if blocked.size else 0.0
    c3.metric(_("largest weight on a blocked pair"), _("0 exactly") if largest == 0 else f"{largest:.1e}",
              help=_("Blocked scores are set to −∞ before the softmax, so their weights are exactly 0."))
    c4.metric(_("top-1 predictions changed"), _("{flips} of {n}").format(flips=flips, n=len(run.tokens)),
              help=_("The model's own output at each position, under the mask vs with full attention."))
    L, H = run.n_layers, run.n_heads
    _url.stale_link("masks_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(L - 1))
    _url.stale_link("masks_head", [head_only(i) for i in range(H)], _("head"), head_only(0))
    lc, hc = st.columns(2)
    # sliders over labels, so the address reads ?masks_layer=L1&masks_head=H2
    layer = lc.select_slider(_("layer"), range(L), L - 1, format_func=layer_label, key="masks_layer", bind=BIND,
                             persist_state=KEEP)
    head = hc.select_slider(_("head"), range(H), 0, format_func=head_only, key="masks_head", bind=BIND,
                            persist_state=KEEP)
    a, b = (_present.main() or st).columns(2)
    about = caption_line(name, head_label(layer, head), text=text)
    with a:
        _export.chart(heatmap.plot_heatmap(run.weights[layer, head], x_labels=labels, y_labels=labels,
                                           x_title=_("key"), y_title=_("query"), value_name=_("weight"),
                                           title=_("Under {pattern}: {head}").format(
                                               pattern=pattern_name(key), head=head_label(layer, head))),
                      key="masks_live_masked", name=(name, file_label(layer, head), "under", key), caption=about)
    with b:
        whole = _("Causal attention: {head}") if decoder else _("Full attention: {head}")
        _export.chart(heatmap.plot_heatmap(full.weights[layer, head], x_labels=labels, y_labels=labels,
                                           x_title=_("key"), y_title=_("query"), value_name=_("weight"),
                                           title=whole.format(head=head_label(layer, head))),
                      key="masks_live_full", name=(name, file_label(layer, head), "causal" if decoder else "full"),
                      caption=about)
    if isinstance(tokenizer, bpe.BPETokenizer):
        st.caption(_("Labels are the model's byte-level BPE pieces, numbered by position: ␣ is the space a piece "
                     "starts with; a character split into byte pieces shows as itself and the part (餐 1/3)."))
    _export.chart(viz.plot_output_change(labels, change, title=_("How much each token's final hidden state "
                                                                 "moves: ‖h_mask − h_full‖ ÷ ‖h_full‖")),
                  key="masks_live_change", name=(name, "output_change", "under", key),
                  caption=caption_line(name, pattern_name(key), text=text))
    if sparse and (line := evaluation(meta)):
        st.caption(line)


def cost_section():
    st.subheader(_("Cost as N grows"))
    for key, lo, hi, what, start in (("masks_cost_w", 1, 1024, N_("window w"), 128), ("masks_cost_g", 0, 64,
                                     N_("global tokens g"), 16), ("masks_cost_s", 2, 4096, N_("stride / block"), 128),
                                     ("masks_cost_r", 0, 64, N_("random keys r"), 3)):
        _url.stale_number(key, lo, hi, _(what), start)
    c = st.columns(4)
    w = int(c[0].number_input(_("window w (each side)"), 1, 1024, 128, key="masks_cost_w", bind=BIND,
                              persist_state=KEEP))
    g = int(c[1].number_input(_("global tokens g"), 0, 64, 16, key="masks_cost_g", bind=BIND, persist_state=KEEP))
    stride = int(c[2].number_input(_("stride / block"), 2, 4096, 128, key="masks_cost_s", bind=BIND,
                                   persist_state=KEEP))
    r = int(c[3].number_input(_("random keys r"), 0, 64, 3, key="masks_cost_r", bind=BIND, persist_state=KEEP))
    names = {k: pattern_name(k) for k in masks.PATTERNS if k != "swin"}
    chosen = st.multiselect(_("Patterns"), list(names), key="masks_cost_patterns",
                            default=["full", "causal", "window", "dilated", "global", "extra_global", "strided",
                                     "block_local"],
                            format_func=names.get, bind=BIND, persist_state=KEEP)
    # the chosen global tokens are the first g of the N: the same g as the extra ones, which are added to the N
    params = dict(width=w, n_global=g, stride=stride, block=stride, per_row=r, dilation=2, positions=tuple(range(g)))
    own = {k: tuple(sorted((p, v) for p, v in params.items() if p in masks.PATTERNS[k].defaults())) for k in chosen}
    counts = {f"{pattern_name(k)} ~ {_(masks.PATTERNS[k].growth)}": pairs_curve(k, own[k]) for k in chosen}
    _export.chart(viz.plot_pairs_growth(SIZES, counts, title=_("Allowed (query, key) pairs against N")),
                  key="masks_pairs", name="mask_pairs_against_N", main=True,
                  caption=caption_line(_("window {w}").format(w=w), _("{g} global").format(g=g)))
    st.dataframe(cost_table(chosen, own, TABLE_N), hide_index=True)
    st.caption(_("At N = {n:,} text tokens. Chosen global tokens are g of the N tokens (here the first {g}), so the "
                 "matrix stays N × N; extra global tokens are g more tokens, so it is (N + g) × (N + g).").format(
        n=TABLE_N, g=g))
    measure_section(w, g)


def cost_table(keys, params: dict, n: int) -> pd.DataFrame:
    """One row per pattern at n text tokens: the matrix it makes, its allowed pairs and their share."""
    rows = []
    for k in keys:
        p = dict(params[k])
        side, pairs = masks.PATTERNS[k].side(n, **p), masks.allowed_pairs(k, n, **p)
        rows.append({_("pattern"): pattern_name(k), _("tokens in the matrix"): f"{side:,} × {side:,}",
                     _("allowed pairs"): f"{pairs:,}", _("share of the matrix"): f"{pairs / side**2:.2%}"})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=64, show_spinner=False)
def pairs_curve(key: str, params: tuple) -> list[int]:
    return [masks.allowed_pairs(key, n, **dict(params)) for n in SIZES]


def measure(sizes: list[int], methods: list[str], w: int, g: int, names: dict):
    """Run the sweep as a child process through the server's heavy-job queue (waiting in line with its position
    shown), its progress bar fed by the rows as they come; the rows go to the session."""
    device, total = _resources.device(), len(sizes) * len(methods)
    job = _heavy.submit(cost.sweep_command(methods, sizes, w, g, device), what=_("The measurement"),
                        memory_mb=cost.memory_bound(device))
    if job is None:
        return

    def progress(j):
        if not j.rows:
            return 0.0, _("Starting the measurement…")
        last = j.rows[-1]
        return len(j.rows) / total, _("{method} at N = {n:,}").format(method=names[last["method"]], n=last["n"])

    _heavy.follow(job, progress)
    if job.state != jobs.DONE:
        st.error(_heavy.failure(job))
    st.session_state["masks_cost_rows"] = list(job.rows)


def measure_section(w: int, g: int):
    st.markdown(_("**Measured** on this machine (one head of dimension 64, one thread, device `{device}`): time of "
                  "one call and peak extra memory above the inputs.").format(device=_resources.device()))
    c = st.columns([2, 2, 1])
    names = {m: _(shown) for m, shown in cost.METHODS.items()}
    sizes = c[0].multiselect("N", SIZES, default=[1024, 4096], key="masks_cost_n", bind=BIND, persist_state=KEEP,
                             help=_("Dense attention at 16k needs about 2.3 GB and tens of seconds."))
    methods = c[1].multiselect(_("Methods"), list(cost.METHODS), default=["dense", "dense_masked", "sparse"],
                               format_func=names.get, key="masks_cost_methods", bind=BIND, persist_state=KEEP,
                               help=_("FlexAttention compiles first: minutes on a busy CPU."))
    go = c[2].button(_("Measure"), type="primary", key="masks_cost_go")
    if go and sizes and methods:
        measure(sorted(sizes), methods, w, g, names)
    st.caption(_heavy.limits())
    rows = st.session_state.get("masks_cost_rows")
    if not rows:
        st.caption(_("Press **Measure** to time the chosen methods."))
        return
    for row in rows:
        if row.get("out_of_memory"):
            st.warning(_("{method} at N = {n:,} needs more than the {mb:,} MiB of memory one measurement may use on "
                         "this server.").format(method=names[row["method"]], n=row["n"], mb=jobs.QUEUE.memory_mb))
        elif "error" in row:
            st.warning(_("{method} at N = {n:,} did not run here: {error}").format(
                method=names[row["method"]], n=row["n"], error=row["error"]))
    ok = [r for r in rows if "error" not in r]
    a, b = st.columns(2)
    measured = caption_line(_("window {w}").format(w=w), _("{g} global").format(g=g),
                            _("one head of dimension 64, device {device}").format(device=_resources.device()))
    _export.chart(viz.plot_cost(ok, "time_ms", title=_("Time per call"), names=names), key="masks_time",
                  where=a, name="attention_time_against_N", caption=measured)
    _export.chart(viz.plot_cost(ok, "peak_mib", title=_("Peak extra memory"), names=names), key="masks_mem",
                  where=b, name="attention_memory_against_N", caption=measured)
    st.caption(_("Time: median of 3 calls, CPU time of the computing thread (wall time on a GPU), so a busy machine "
                 "does not inflate it. Memory: the process's peak resident memory above its level before the call "
                 "(GPU: the allocator's peak); below ~5 MiB it is within the allocator's noise."))
    table = pd.DataFrame(ok).rename(columns={"method": _("method"), "time_ms": _("time (ms)"),
                                             "peak_mib": _("peak memory (MiB)")})
    st.dataframe(table, hide_index=True)


def render():
    st.title(_("Masks & sparse attention"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.markdown(_("A mask decides which keys each query may attend: blocked scores become −∞ before the softmax, so "
                  "their weights are exactly 0. Dense attention pays for all N² pairs; windows, dilation and a few "
                  "global tokens keep the cost linear in N while information still spreads across the input layer "
                  "by layer."))
    # the open tab is in the URL; the lab's patterns are drawn on every run (the receptive field reads them), the
    # other tabs only when open (the live model and the cost curves are the slow parts)
    tabs = [_(t) for t in TABS]
    _url.named_anew("masks_tab", tabs)                         # the language changed: the open tab stays open
    _url.stale_link("masks_tab", tabs, _("the tab"), tabs[0])
    lab, reach_tab, live, price = st.tabs(tabs, key="masks_tab", on_change="rerun", bind=BIND)
    with lab:
        n, chosen = lab_section(lab.open)
    if reach_tab.open:
        with reach_tab:
            reach_section(n, chosen)
    if live.open:
        with live:
            live_section()
    if price.open:
        with price:
            cost_section()
