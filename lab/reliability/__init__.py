"""Proof that the device holds: fuzzing, kill -9 during writes, long soaks, load, the HTTP schema checks
and the security audit (``run`` runs them all, for ``garden-scorer-lab bench --reliability``)."""
