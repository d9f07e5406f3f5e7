"""One look for every figure: large type for projectors, one sequential colour scale for weights."""
import plotly.graph_objects as go

WEIGHT_SCALE = "Blues"          # attention weights in [0, 1]
DIVERGING_SCALE = "RdBu_r"      # signed values (differences, Q/K/V entries), centred on 0
HEAD_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf", "#393b79", "#637939"]
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=14)


def style(fig: go.Figure, title: str | None = None, height: int | None = None) -> go.Figure:
    """Apply the house layout (white background, readable fonts, tight margins)."""
    # No named template: copying one costs ~50 ms a figure, and Streamlit applies its own theme anyway.
    fig.update_layout(font=FONT, margin=dict(l=10, r=10, t=50 if title else 20, b=10),
                      paper_bgcolor="white", plot_bgcolor="white",
                      title=dict(text=title, x=0.01) if title else None)
    if height:
        fig.update_layout(height=height)
    return fig
