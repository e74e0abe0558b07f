"""Metric cases run on mindseed and (by make_metric_reference.py) on MindSpore; results compared."""
import numpy as np
def cases(T):
    """Run every case with the metrics namespace `T`; name -> result as nested lists (or the error type)."""
    rs = np.random.RandomState(0)
    logits = rs.rand(12, 4)
    labels = rs.randint(0, 4, 12)
    out = {}
    def run(name, fn):
        try:
            r = fn()
            out[name] = np.asarray(r, dtype=np.float64).tolist() if not isinstance(r, (list, tuple)) else [np.asarray(x, dtype=np.float64).tolist() for x in r]  # noqa: E501
        except Exception as e:
            out[name] = f"{type(e).__name__}"
    run("acc", lambda: T.Accuracy()(logits, labels))
    ml_p = (rs.rand(6, 3) > 0.5).astype(np.float32)
    ml_y = (rs.rand(6, 3) > 0.5).astype(np.float32)
    run("acc_ml", lambda: T.Accuracy('multilabel')(ml_p, ml_y))
    run("prec", lambda: T.Precision()(logits, labels))
    m = T.Precision()
    m.update(logits, labels)
    run("prec_avg", lambda: m.eval(True))
    m = T.Precision('multilabel')
    m.update(ml_p, ml_y)
    run("prec_ml", lambda: m.eval())
    run("prec_ml_avg", lambda: m.eval(True))
    run("rec", lambda: T.Recall()(logits, labels))
    m = T.Recall('multilabel')
    m.update(ml_p, ml_y)
    run("rec_ml_avg", lambda: m.eval(True))
    run("f1", lambda: T.F1()(logits, labels))
    run("fb", lambda: T.Fbeta(0.5)(logits, labels))
    run("top2", lambda: T.TopKCategoricalAccuracy(2)(logits, labels))
    run("top1", lambda: T.Top1CategoricalAccuracy()(logits, labels))
    run("cm", lambda: T.ConfusionMatrix(4)(logits, labels))
    for norm in ("target", "prediction", "all"):
        run("cm_" + norm, lambda norm=norm: T.ConfusionMatrix(4, normalize=norm)(logits, labels))
    run("cm_thr", lambda: T.ConfusionMatrix(2, threshold=0.3)(rs.rand(8).astype(np.float32), rs.randint(0, 2, 8)))
    seg_p = (rs.rand(3, 2, 4, 4) > 0.5).astype(np.float32)
    seg_y = (rs.rand(3, 2, 4, 4) > 0.5).astype(np.float32)
    for mn in ("tpr", "tnr", "ppv", "npv", "fnr", "fpr", "fdr", "for", "pt", "ts", "acc", "ba", "f1", "mcc", "fm", "bm", "mk"):  # noqa: E501
        run("cmm_" + mn, lambda mn=mn: T.ConfusionMatrixMetric(metric_name=mn)(seg_p, seg_y))
        run("cmm_calc_" + mn,
            lambda mn=mn: T.ConfusionMatrixMetric(metric_name=mn, calculation_method=True)(seg_p, seg_y))
    run("cmm_noskip", lambda: T.ConfusionMatrixMetric(skip_channel=False, metric_name="f1 score")(seg_p, seg_y))
    for dec in ("sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel"):
        run("cmm_dec_" + dec, lambda dec=dec: T.ConfusionMatrixMetric(metric_name="tpr", calculation_method=True, decrease=dec)(seg_p, seg_y))  # noqa: E501
    run("mae", lambda: T.MAE()(rs.rand(5, 2), rs.rand(5, 2)))
    run("mse", lambda: T.MSE()(rs.rand(5, 2), rs.rand(5, 2)))
    m = T.Loss()
    m.update(np.array(0.5))
    m.update(np.array([1.0, 2.0, 4.0]))
    run("loss", lambda: m.eval())
    run("dice", lambda: T.Dice()(rs.rand(3, 4), (rs.rand(3, 4) > .5).astype(float)))
    run("roc_bin", lambda: T.ROC(pos_label=1)(rs.rand(10), rs.randint(0, 2, 10)))
    run("roc_mc", lambda: T.ROC(class_num=4)(rs.rand(4, 4), np.array([0, 1, 2, 3])))
    x = np.array([0., 0.2, 0.5, 0.5, 1.0])
    y = np.array([0., 0.4, 0.6, 0.9, 1.0])
    run("auc", lambda: T.auc(x, y))
    run("auc_re", lambda: T.auc(x[::-1].copy(), y, reorder=True))
    run("auc_dec", lambda: T.auc(x[::-1].copy(), y))
    emb = rs.rand(4, 3)
    for sim in ("cosine", "dot"):
        for red in ("none", "sum", "mean"):
            run(f"cos_{sim}_{red}", lambda sim=sim, red=red: T.CosineSimilarity(sim, red)(emb))
    run("cos_nozero", lambda: T.CosineSimilarity(zero_diagonal=False)(emb))
    probs = rs.rand(2, 5, 6)
    probs /= probs.sum(-1, keepdims=True)
    lab = rs.randint(0, 6, (2, 5))
    p2, l2 = probs.reshape(10, 6), lab.reshape(10)
    run("ppl", lambda: T.Perplexity()(p2, l2))
    run("ppl_ign", lambda: T.Perplexity(ignore_label=2)(p2, l2))
    cand = [["the", "cat", "sat", "on", "a", "mat"], ["hello", "there", "general", "kenobi"]]
    refs = [[["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]], [["hello", "there", "general", "kenobi"]]]  # noqa: E501
    for n in (1, 2, 3, 4):
        run(f"bleu{n}", lambda n=n: T.BleuScore(n)(cand, refs))
        run(f"bleu{n}s", lambda n=n: T.BleuScore(n, smooth=True)(cand, refs))
    a = rs.randint(0, 3, (6, 7))
    b = rs.randint(0, 3, (6, 7))
    for metric in ("euclidean", "chessboard", "taxicab"):
        run(f"hd_{metric}", lambda metric=metric: T.HausdorffDistance(metric)(a, b, 1))
        run(f"msd_{metric}", lambda metric=metric: T.MeanSurfaceDistance(distance_metric=metric)(a, b, 1))
        run(f"msd_sym_{metric}", lambda metric=metric: T.MeanSurfaceDistance(True, metric)(a, b, 2))
        run(f"rms_{metric}", lambda metric=metric: T.RootMeanSquareDistance(distance_metric=metric)(a, b, 1))
        run(f"rms_sym_{metric}", lambda metric=metric: T.RootMeanSquareDistance(True, metric)(a, b, 0))
    run("hd_pct", lambda: T.HausdorffDistance(percentile=50.0)(a, b, 0))
    run("hd_dir", lambda: T.HausdorffDistance(directed=True, crop=False)(a, b, 2))
    a3 = rs.randint(0, 2, (4, 5, 3))
    b3 = rs.randint(0, 2, (4, 5, 3))
    run("hd3", lambda: T.HausdorffDistance()(a3, b3, 1))
    thin = np.zeros((5, 6), int)
    thin[2, 1:5] = 1
    thin2 = np.zeros((5, 6), int)
    thin2[2, 2:4] = 1
    run("hd_thin", lambda: T.HausdorffDistance()(thin, thin2, 1))
    run("msd_doc", lambda: T.MeanSurfaceDistance(symmetric=True)(np.array([[3, 0, 1], [1, 1, 1], [0, 1, 0]]), np.array([[2, 0, 1], [1, 1, 2], [0, 1, 0]]), 0))  # noqa: E501
    run("hd_doc", lambda: T.HausdorffDistance()(np.array([[3, 0, 1], [1, 1, 1], [0, 1, 0]]), np.array([[2, 0, 1], [1, 1, 2], [0, 1, 0]]), 0))  # noqa: E501
    run("rms_doc", lambda: T.RootMeanSquareDistance(symmetric=True)(np.array([[3, 0, 1], [1, 1, 1], [0, 1, 0]]), np.array([[2, 0, 1], [1, 1, 2], [0, 1, 0]]), 0))  # noqa: E501
    return out
