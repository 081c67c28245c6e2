"""The learned hand splitter (``docs/splitting.md``, "The learned splitter"): a BiLSTM-CRF
sequence tagger trained on how winners split their hands.

:mod:`~paiju.doudizhu.tagger.data` builds the dataset from game records,
:mod:`~paiju.doudizhu.tagger.model` holds the network and the decoding to a split,
:mod:`~paiju.doudizhu.tagger.train` is the single-file training command. Importing this
package imports neither torch nor pyarrow.
"""
