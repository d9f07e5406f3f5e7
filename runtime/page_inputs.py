"""A page's inputs as Streamlit's private registries know them, for opening a view in this tab (app_pages/_walk.py):

- drawn(): the keys of the widgets drawn in this script run, so the session knows which inputs a page has (the
  address shows only those whose value differs from the default, and only in a browser);
- release(keys): st.switch_page(page, query_params=…) refuses a parameter that a widget of this run is bound to
  (bind="query-params": the page's own inputs while a view steps to another view of the same page, the sidebar's
  model, the presentation switch); this lets go of those bindings first, and each widget binds its parameter again
  when it next draws, reading the view's value from the address as on a link's first run (its value forgotten by
  app_pages/_url.forget_inputs).

Streamlit 1.67 has no public call for either (runtime/version.py pins the release)."""
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx


def drawn() -> frozenset[str]:
    """The keys of the widgets drawn so far in this run (empty outside a run)."""
    ctx = get_script_run_ctx()
    return ctx.shared.widget_user_keys_this_run.snapshot() if ctx is not None else frozenset()


def release(keys) -> None:
    """Unbind the widgets bound to the parameters `keys` (nothing for a parameter no widget is bound to)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with ctx.session_state.query_params() as qp:
        for key in keys:
            binding = qp.get_binding_for_param(key)
            if binding is not None:
                qp.unbind_widget(binding.widget_id)
