"""Chapter 10: its hidden cell checks its counts (compsem.setcomp.datachapter.check_claims);
the rest are the paper's construction."""

NOT_CLAIMS = {
}
