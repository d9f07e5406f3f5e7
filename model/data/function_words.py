"""English function words: words a pronoun never stands for, and which head statistics leave out of "content"."""

FUNCTION_WORDS = frozenset(
    "a an the and or but so to of in on at by for with from as is was are were be been am do does did "
    "that this these those which who whom what when where why how not no me my we us our you your i "
    "because only just very than then there here also too".split())
