"""For whoever adds a problem: `jax-course new` starts one, `jax-course prove` proves a set from every side."""
