"""Chapter 98: an estimate, labelled as such; its rules of thumb are named, not measured."""

NOT_CLAIMS = {
    "built from two numbers and two rules of thumb": "the estimate's design",
    "The two rates come from different texts": "what the published rates are",
    "a newer GPU (A100, H100) is faster still": "a caveat on the estimate, not a measurement of the book",
    "probably mostly its multilingual vocabulary": "labelled in the sentence as a reading of the architecture, not measured",
}
