"""JupyterLab's anchor for a heading, for the site's headings (a module, so Sphinx can pickle it)."""


def jupyter_anchor(title: str) -> str:
    """`"NaN gradients through jnp.where"` -> `"NaN-gradients-through-jnp.where"`: spaces made hyphens."""
    return title.strip().replace(" ", "-")
