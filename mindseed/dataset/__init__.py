"""`mindspore.dataset` (MindData): sources, samplers, pipeline operations, iterators and transforms.

    import mindseed.dataset as ds
    data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False).map(lambda x: x * 2, "x").batch(2)
    for row in data.create_dict_iterator(output_numpy=True):
        ...
"""
from mindseed.dataset import config  # noqa: F401
from mindseed.dataset import samplers as _samplers_mod
from mindseed.dataset import audio, text, transforms, vision  # noqa: F401
from mindseed.dataset._engine import (AudioBaseDataset, BatchInfo, Dataset, DictIterator, SourceDataset,  # noqa: F401
                                      TextBaseDataset, TupleIterator, UnionBaseDataset, VisionBaseDataset)
from mindseed.dataset._mind_source import MindDataset  # noqa: F401
from mindseed.dataset._batch_ops import BatchDataset, BucketBatchByLengthDataset, PaddedBatchDataset  # noqa: F401
from mindseed.dataset._ops import (ConcatDataset, FilterDataset, MapDataset, ProjectDataset,  # noqa: F401
                                   RenameDataset, RepeatDataset, ShuffleDataset, SkipDataset, SyncWaitDataset,
                                   TakeDataset, ZipDataset)
from mindseed.dataset._schema import Schema, DSCallback, WaitedDSCallback  # noqa: F401
from mindseed.dataset._sources import (GeneratorDataset, MappableSource as MappableDataset,  # noqa: F401
                                       NumpySlicesDataset, PaddedDataset, Shuffle)
from mindseed.dataset._text_sources import CSVDataset, TextFileDataset  # noqa: F401
from mindseed.dataset._text_corpora import (AGNewsDataset, AmazonReviewDataset, CLUEDataset,  # noqa: F401
                                            CoNLL2000Dataset, IWSLT2016Dataset, IWSLT2017Dataset, Multi30kDataset,
                                            DBpediaDataset, EnWik9Dataset, IMDBDataset, PennTreebankDataset,
                                            SogouNewsDataset, SQuADDataset, SST2Dataset, UDPOSDataset,
                                            WikiTextDataset, YahooAnswersDataset, YelpReviewDataset)
from mindseed.dataset._vision_sources import (Cifar10Dataset, Cifar100Dataset, EMnistDataset,  # noqa: F401
                                              FashionMnistDataset, ImageFolderDataset, KMnistDataset, MnistDataset,
                                              QMnistDataset)
from mindseed.dataset._vision_more import (Caltech101Dataset, Caltech256Dataset, CelebADataset,  # noqa: F401
                                           FakeImageDataset, Flowers102Dataset, SemeionDataset, STL10Dataset,
                                           SVHNDataset, USPSDataset)
from mindseed.dataset._audio_sources import (CMUArcticDataset, LibriTTSDataset, LJSpeechDataset,  # noqa: F401
                                             SpeechCommandsDataset, TedliumDataset, YesNoDataset)
from mindseed.dataset._gtzan import GTZANDataset  # noqa: F401
from mindseed.dataset._obs import OBSMindDataset, sync_wait_for_dataset  # noqa: F401
from mindseed.dataset._serialize import compare, deserialize, serialize, show  # noqa: F401
from mindseed.dataset._vision_files import (DIV2KDataset, FlickrDataset, Food101Dataset, KITTIDataset,  # noqa: F401
                                            LSUNDataset,
                                            OmniglotDataset, RenderedSST2Dataset, SBUDataset, SUN397Dataset,
                                            WIDERFaceDataset)
from mindseed.dataset._vision_scenes import (CityscapesDataset, LFWDataset, PhotoTourDataset,  # noqa: F401
                                             Places365Dataset, SBDataset)
from mindseed.dataset._detection_sources import CocoDataset, VOCDataset  # noqa: F401
from mindseed.dataset._format_sources import ManifestDataset, RandomDataset, TFRecordDataset  # noqa: F401
from mindseed.dataset.samplers import (DistributedSampler, PKSampler, RandomSampler, Sampler,  # noqa: F401
                                       SequentialSampler, SubsetRandomSampler, SubsetSampler,
                                       WeightedRandomSampler)

__all__ = ["config", "Dataset", "GeneratorDataset", "NumpySlicesDataset", "PaddedDataset", "MnistDataset",
           "FashionMnistDataset", "KMnistDataset", "Cifar10Dataset", "Cifar100Dataset", "ImageFolderDataset",
           "CSVDataset", "TextFileDataset", "MindDataset", "Schema", "Shuffle", "DSCallback", "WaitedDSCallback",
           "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "SubsetSampler",
           "WeightedRandomSampler", "PKSampler", "DistributedSampler", "BatchInfo", "zip", "transforms", "vision",
           "text", "audio", "EMnistDataset", "QMnistDataset", "SVHNDataset", "STL10Dataset", "USPSDataset",
           "SemeionDataset",
           "Flowers102Dataset", "Caltech101Dataset", "Caltech256Dataset", "CelebADataset", "FakeImageDataset",
           "VOCDataset", "CocoDataset", "ManifestDataset", "TFRecordDataset", "RandomDataset",
           "AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "SogouNewsDataset", "YahooAnswersDataset",
           "YelpReviewDataset", "PennTreebankDataset", "WikiTextDataset", "EnWik9Dataset", "SST2Dataset",
           "IMDBDataset", "CoNLL2000Dataset", "UDPOSDataset", "SQuADDataset", "Multi30kDataset", "CLUEDataset",
           "IWSLT2016Dataset", "IWSLT2017Dataset", "TedliumDataset",
           "GTZANDataset", "OBSMindDataset", "sync_wait_for_dataset", "serialize", "deserialize", "show",
           "compare", "LJSpeechDataset", "YesNoDataset",
           "SpeechCommandsDataset", "CMUArcticDataset",
           "LibriTTSDataset",
           "Food101Dataset", "SUN397Dataset", "RenderedSST2Dataset", "OmniglotDataset", "FlickrDataset", "SBUDataset",
           "DIV2KDataset", "WIDERFaceDataset", "KITTIDataset", "LSUNDataset",
           "Places365Dataset", "LFWDataset", "CityscapesDataset", "SBDataset", "PhotoTourDataset"]


def zip(datasets):  # noqa: A001  (MindSpore's name)
    """Zip a tuple of datasets: rows side by side (column names must differ)."""
    if not isinstance(datasets, tuple) or len(datasets) < 2:
        raise TypeError("datasets should be a tuple of at least two Dataset objects.")
    return ZipDataset(datasets)


from mindseed.dataset._cache import DatasetCache  # noqa: E402
from mindseed.dataset import debug, utils  # noqa: E402,F401
from mindseed.dataset.utils import LineReader  # noqa: E402

__all__ += ["DatasetCache", "LineReader"]

del _samplers_mod

import mindseed.dataset.engine.datasets  # noqa: E402,F401  (`mindspore.dataset.engine` is loaded with the package)
