"""Chapter 98: an estimate, labelled as such; its rules of thumb are named, not measured."""

NOT_CLAIMS = {
}
