"""How many entries each process-wide cache of the model package keeps (functools.lru_cache), and why. Most read a
shipped or installed file once; the key says which file, so a size is the number of files a process reads."""

ONCE = 1                  # one value per process: the byte table, the course's tag lexicon
PER_SPLIT = 2             # one per corpus split ("train", "heldout")
WORDNET_ROOTS = 2         # the installed WordNet, and the small one a test builds
WORDNET_PARTS = 4         # WordNet's parts of speech read (noun, adj) in up to two roots
TOKENIZER_FILES = 4       # tokenizers read from a file or a package (the shipped BPE, a pretrained WordPiece, tests')
ASSET_FOLDERS = 8         # folders whose packaged-model list is kept (assets/, assets/finetune, tests' own)
SPARSE_MASK_SHAPES = 64   # the blocked sparse kernel's masks per (length, blocks, window, device): a page's lengths
