"""The published replicas: each paper's algorithm as its text or code has it, unsound where the paper is.

One module per learner, each adding the ``published`` variant to the sound
learner of :mod:`refdp.algorithms` that it imports (the registry's
:data:`~refdp.algorithms.registry.VARIANT_MODULES` loads it); no sound
learner imports one.  Every step that breaks the paper's privacy claim is
marked unsound in the receipt, with the claim in ``proofs/`` that refutes it.
"""
