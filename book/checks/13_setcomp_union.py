"""Chapter 13: the paper's criterion and the data's construction."""

NOT_CLAIMS = {
    "clearly larger than": "the criterion's definition",
    "when the two norms are comparable": "the criterion's definition",
    "both compress two sentences to about half their length": "the fusion prompt's length budget (chapter 10 measures ours)",
}
