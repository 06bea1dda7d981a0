"""Chapter 98: an estimate, labelled as such; its rules of thumb are named, not measured."""

NOT_CLAIMS = {
    "from two rules of thumb where nothing was": "the estimate's design (each assumed rule is labelled assumed below)",
    "weights, gradients and two moments": "what the assumed memory rule counts (labelled assumed, not measured)",
    "probably mostly its multilingual vocabulary": "labelled in the sentence as a reading of the architecture, not measured",
}
