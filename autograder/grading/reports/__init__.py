"""What an instructor reads after grading: the summary, report.csv and report.html, and what a class got wrong.

`_report.py` writes the summary table and the reports (from the templates beside it, `*.html.jinja`); `_items.py` is
the item analysis (`jax-course report`), per problem and test cell, from any nbgrader course's gradebook.
"""
