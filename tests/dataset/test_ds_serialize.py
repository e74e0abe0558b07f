"""serialize / deserialize / show / compare: MindSpore's JSON layout, and rebuilt pipelines give the same rows."""
import json
import logging

import pytest

import mindseed.dataset as ds
import mindseed.dataset.text as text
import mindseed.dataset.vision as vision


@pytest.fixture()
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("a b c\nd e\nf g h i\nj\n")
    return str(path)


def rows(d):
    return [[c.tolist() for c in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_serialize_layout_matches_mindspore(corpus):
    d = ds.TextFileDataset(corpus, shuffle=False).map(text.WhitespaceTokenizer()).batch(2, drop_remainder=True)
    tree = ds.serialize(d)
    assert tree["op_type"] == "Batch" and tree["batch_size"] == 2 and tree["drop_remainder"] is True
    mapped = tree["children"][0]
    assert mapped["op_type"] == "Map" and mapped["input_columns"] == [] and mapped["callback"] == []
    assert mapped["operations"] == [{"tensor_op_name": "WhitespaceTokenizer",
                                     "tensor_op_params": {"with_offsets": False}}]
    source = mapped["children"][0]
    assert source["op_type"] == "TextFileDataset" and source["dataset_files"] == [corpus]
    assert source["shuffle"] is False and source["children"] == []
    fn = ds.NumpySlicesDataset({"a": [1, 2]}, shuffle=False).map(lambda x: x, input_columns=["a"])
    assert ds.serialize(fn)["operations"] == [{"python_module": __name__, "tensor_op_name": "<lambda>"}]


def test_deserialize_rebuilds_the_same_pipeline(corpus, tmp_path):
    d = (ds.TextFileDataset(corpus, shuffle=False).map(text.WhitespaceTokenizer()).map(text.Ngram(2))
         .skip(1).take(2).rename(["text"], ["t"]).project(["t"]).repeat(2))
    path = str(tmp_path / "pipeline.json")
    tree = ds.serialize(d, json_filepath=path)
    assert json.load(open(path)) == tree
    again = ds.deserialize(json_filepath=path)
    assert ds.compare(d, again) and rows(again) == rows(d)
    assert rows(d)[0] == [["d e"]] and len(rows(d)) == 4
    img = ds.deserialize(input_dict=ds.serialize(
        ds.TextFileDataset(corpus, shuffle=False).map(vision.Resize((4, 4), vision.Inter.NEAREST))))
    assert img.operations[0].interpolation is vision.Inter.NEAREST
    assert not ds.compare(d, d.take(1))


def test_show_and_errors(corpus, caplog):
    d = ds.TextFileDataset(corpus, shuffle=False)
    with caplog.at_level(logging.INFO, logger="mindseed.dataset"):
        ds.show(d)
    assert '"op_type": "TextFileDataset"' in caplog.text
    fn = ds.NumpySlicesDataset({"a": [1, 2]}, shuffle=False)
    with pytest.raises(RuntimeError, match="NumpySlicesDataset holds Python data"):
        ds.deserialize(ds.serialize(fn))
    with pytest.raises(RuntimeError, match="the Python function '<lambda>'"):
        ds.deserialize(ds.serialize(d.map(lambda x: x)))
    with pytest.raises(ValueError, match="exactly one of input_dict and json_filepath"):
        ds.deserialize()
    with pytest.raises(RuntimeError, match="unknown op_type 'Nope'"):
        ds.deserialize({"op_type": "Nope", "children": []})
    with pytest.raises(TypeError, match="serialize: dataset should be a Dataset"):
        ds.serialize([1, 2])
