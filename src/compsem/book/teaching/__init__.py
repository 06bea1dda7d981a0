"""Teaching: student copies of the exercises, otter-grader assignments, the course guide's sessions, the Colab launch cell."""
