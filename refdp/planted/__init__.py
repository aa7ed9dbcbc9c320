"""Learners with a planted fault: variants the audits must catch (``refdp audit --learner``).

One module per learner, each adding an unsound variant (a single step
changed, marked unsound in the receipt, with the claim in ``proofs/`` that
shows the leak) to the sound learner of :mod:`refdp.algorithms` that it
imports; the registry's :data:`~refdp.algorithms.registry.VARIANT_MODULES`
loads it, and no sound learner imports one.  The planted *mechanisms* with
their exact laws (``refdp audit --planted``) are :mod:`refdp.audit.planted`.
"""
