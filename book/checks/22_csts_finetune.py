"""Chapter 22: the paper's design and the chapter's."""


NOT_CLAIMS = {
}
