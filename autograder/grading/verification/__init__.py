"""Verdicts a kernel cannot fake: verified answers leave it as programs, judged where no student code runs.

`_verification.py` adds the hand-over cells and applies the verdicts; `_verifier.py` runs the verifier's processes,
kept warm between notebooks; `_verifier_process.py` starts one, forked from the kernels' nursery.
"""
