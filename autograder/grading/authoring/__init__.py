"""For whoever edits the course: keeping its notebooks' Colab badges and INTEGRITY.md's table of verified tests current.

`_colab.py` rewrites every notebook's "Open in Colab" badge and setup cell (`jax-course badges`); `_share.py` tells
how each graded test is verified, the table `jax-course verified` prints and writes into INTEGRITY.md.
"""
