/* mindseed codegen runtime: the kernels a generated model calls (float32, NCHW, row-major).
 *
 * Plain C99 and libm. With GCC or Clang the matrix product's inner tiles use the compilers' generic vector
 * extension (8 floats); define MSCG_SCALAR to build the plain loops instead. Every kernel writes only its
 * output: the arena is planned by the generator, and nothing here allocates.
 */

#if defined(__GNUC__) || defined(__clang__)
#define MSCG_FN static __attribute__((unused))   /* a model uses some of the kernels */
#else
#define MSCG_FN static
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(MSCG_SCALAR)
#define MSCG_VECTOR 1
typedef float mscg_v8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef int mscg_i8 __attribute__((vector_size(32), aligned(4), may_alias));
/* a scalar broadcast to 8 lanes (no vector is passed or returned by value: no ABI dependence on -mavx) */
#define MSCG_SPLAT(v) (((mscg_v8){0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}) + (v))
#define MSCG_TILE_ALIGN __attribute__((aligned(32)))
#else
#define MSCG_TILE_ALIGN
#endif

MSCG_FN float mscg_relu(float v) { return v > 0.0f ? v : 0.0f; }

/* C[i0..i1) x [j..j+n) from one 16-column panel b (K rows of 16 floats): plain loops (the scalar build's kernel). */
MSCG_FN void mscg_panel_scalar(int i0, int i1, int j, int n, int K, const float *A, int lda, const float *b, float *C,
                               int ldc, const float *bias_row, const float *bias_col, int relu)
{
    int i, jj, k;
    for (i = i0; i < i1; i++)
        for (jj = 0; jj < n; jj++) {
            float acc = bias_row ? bias_row[i] : bias_col ? bias_col[j + jj] : 0.0f;
            for (k = 0; k < K; k++)
                acc += A[(long)i * lda + k] * b[16L * k + jj];
            C[(long)i * ldc + j + jj] = relu ? mscg_relu(acc) : acc;
        }
}

/* Panel p of B (K x N, rows ldb apart): columns [16p, 16p + 16) as K contiguous rows of 16, zeros past N. */
MSCG_FN void mscg_pack_panel(const float *B, int ldb, int K, int N, int p, float *panel)
{
    const int j = 16 * p, n = N - j < 16 ? N - j : 16;
    int k, jj;
    for (k = 0; k < K; k++) {
        const float *src = B + (long)k * ldb + j;
        float *dst = panel + 16L * k;
        if (n == 16)
            memcpy(dst, src, 16 * sizeof(float));
        else
            for (jj = 0; jj < 16; jj++)
                dst[jj] = jj < n ? src[jj] : 0.0f;
    }
}

#ifdef MSCG_VECTOR
MSCG_FN void mscg_store_tile(float *c, const mscg_v8 *acc, int nvec, int relu)
{
    int j;
    for (j = 0; j < nvec; j++)
        *(mscg_v8 *)(c + 8 * j) = acc[j];
    if (relu)
        for (j = 0; j < 8 * nvec; j++)
            c[j] = mscg_relu(c[j]);
}

/* An accumulator's start: the row's bias, the 8 columns' biases, or 0. */
MSCG_FN void mscg_tile_init(mscg_v8 *acc, const float *brow, const float *bcol)
{
    if (brow)
        *acc = MSCG_SPLAT(brow[0]);
    else if (bcol)
        *acc = *(const mscg_v8 *)bcol;
    else
        *acc = MSCG_SPLAT(0.0f);
}

/* c[0..4) x [0..16) = a[0..4) x b (+ brow[i] | + bcol[j]): 8 accumulators in registers over the whole K loop.
 * With rows < 4 the missing rows repeat the last one (c must have room for 4 rows). */
MSCG_FN void mscg_tile4x16(int K, const float *a, int lda, const float *b, int ldb, float *c, int ldc,
                           const float *brow, const float *bcol, int relu, int rows)
{
    const int i1 = rows > 1, i2 = rows > 2 ? 2 : i1, i3 = rows > 3 ? 3 : i2;
    const float *a0 = a, *a1 = a + i1 * (long)lda, *a2 = a + i2 * (long)lda, *a3 = a + i3 * (long)lda;
    mscg_v8 c00, c01, c10, c11, c20, c21, c30, c31, r[2];
    int k;
    if (brow) {
        c00 = c01 = MSCG_SPLAT(brow[0]); c10 = c11 = MSCG_SPLAT(brow[i1]);
        c20 = c21 = MSCG_SPLAT(brow[i2]); c30 = c31 = MSCG_SPLAT(brow[i3]);
    } else if (bcol) {
        c00 = c10 = c20 = c30 = *(const mscg_v8 *)bcol;
        c01 = c11 = c21 = c31 = *(const mscg_v8 *)(bcol + 8);
    } else {
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = MSCG_SPLAT(0.0f);
    }
    for (k = 0; k < K; k++, b += ldb) {
        const mscg_v8 b0 = *(const mscg_v8 *)b, b1 = *(const mscg_v8 *)(b + 8);
        mscg_v8 s;
        s = MSCG_SPLAT(a0[k]); c00 += s * b0; c01 += s * b1;
        s = MSCG_SPLAT(a1[k]); c10 += s * b0; c11 += s * b1;
        s = MSCG_SPLAT(a2[k]); c20 += s * b0; c21 += s * b1;
        s = MSCG_SPLAT(a3[k]); c30 += s * b0; c31 += s * b1;
    }
    r[0] = c00; r[1] = c01; mscg_store_tile(c, r, 2, relu);
    r[0] = c10; r[1] = c11; mscg_store_tile(c + ldc, r, 2, relu);
    r[0] = c20; r[1] = c21; mscg_store_tile(c + 2L * ldc, r, 2, relu);
    r[0] = c30; r[1] = c31; mscg_store_tile(c + 3L * ldc, r, 2, relu);
}

/* c[0..6) x [0..16) = a[0..6) x b (+ brow[i] | + bcol[j]) [then ReLU], b a panel (K rows of 16): 12 accumulators
 * over the whole K loop (the blocked convolution's register tile; broadcasts as brace initialisers). */
MSCG_FN void mscg_tile6x16(int K, const float *a, int lda, const float *b, float *c, int ldc, const float *brow,
                           const float *bcol, int relu)
{
    mscg_v8 acc0[6], acc1[6], r[2];
    int i, k;
    for (i = 0; i < 6; i++) {
        mscg_tile_init(acc0 + i, brow ? brow + i : 0, bcol);
        mscg_tile_init(acc1 + i, brow ? brow + i : 0, bcol ? bcol + 8 : 0);
    }
#pragma GCC unroll 1
    for (k = 0; k < K; k++, b += 16) {
        const mscg_v8 b0 = *(const mscg_v8 *)b, b1 = *(const mscg_v8 *)(b + 8);
#pragma GCC unroll 6
        for (i = 0; i < 6; i++) {
            const float e = a[i * (long)lda + k];
            const mscg_v8 s = {e, e, e, e, e, e, e, e};
            acc0[i] += s * b0;
            acc1[i] += s * b1;
        }
    }
    for (i = 0; i < 6; i++) {
        r[0] = acc0[i];
        r[1] = acc1[i];
        mscg_store_tile(c + i * (long)ldc, r, 2, relu);
    }
}

MSCG_FN void mscg_copy_cols(float *c, int ldc, const float *t, int ldt, int rows, int n)
{
    int i;
    for (i = 0; i < rows; i++)
        memcpy(c + (long)i * ldc, t + (long)i * ldt, (size_t)n * sizeof(float));
}

/* One row, one panel. */
MSCG_FN void mscg_tile1x16(int K, const float *a, const float *b, float *c, const float *brow, const float *bcol,
                           int relu)
{
    mscg_v8 acc[2];
    int k;
    mscg_tile_init(acc, brow, bcol);
    mscg_tile_init(acc + 1, brow, bcol ? bcol + 8 : 0);
    for (k = 0; k < K; k++, b += 16) {
        const mscg_v8 s = MSCG_SPLAT(a[k]);
        acc[0] += s * *(const mscg_v8 *)b;
        acc[1] += s * *(const mscg_v8 *)(b + 8);
    }
    mscg_store_tile(c, acc, 2, relu);
}

/* One row, two panels (4 accumulators: the matrix-vector product of a batch-1 dense layer). */
MSCG_FN void mscg_tile1x32(int K, const float *a, const float *b0, const float *b1, float *c, const float *brow,
                           const float *bcol, int relu)
{
    mscg_v8 acc[4];
    int k, v;
    for (v = 0; v < 4; v++)
        mscg_tile_init(acc + v, brow, bcol ? bcol + 8 * v : 0);
    for (k = 0; k < K; k++, b0 += 16, b1 += 16) {
        const mscg_v8 s = MSCG_SPLAT(a[k]);
        acc[0] += s * *(const mscg_v8 *)b0; acc[1] += s * *(const mscg_v8 *)(b0 + 8);
        acc[2] += s * *(const mscg_v8 *)b1; acc[3] += s * *(const mscg_v8 *)(b1 + 8);
    }
    mscg_store_tile(c, acc, 4, relu);
}
#endif

/* C (M x N) = A (M x K) B (K x N) [+ bias_row[i] | + bias_col[j]] [then ReLU], A and C rows lda / ldc apart.
 * B is read in panels of 16 columns, each K contiguous rows of 16 floats (zeros past N): with `packed` B is
 * already laid out so (panel p at B + 16*K*p: the generator stores constant weights that way, and bias_col is
 * then readable up to N rounded up to 16); else B's rows are ldb apart and each panel is copied into `panel`
 * (16*K floats) once, then every block of rows of A passes over it from L1. */
MSCG_FN void mscg_gemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb, int packed, float *panel,
                       float *C, int ldc, const float *bias_row, const float *bias_col, int relu)
{
    const int panels = (N + 15) / 16;
    int p;
#ifdef MSCG_VECTOR
    const int m4 = M / 4 * 4, last = packed ? m4 : M;
    float tmp[4 * 32], bc[32];
    int i, step;
    for (p = 0; p < panels; p++) {
        const int j = 16 * p, n = N - j < 16 ? N - j : 16;
        const float *b = packed ? B + 16L * K * p : panel, *pb = bias_col ? bias_col + j : 0;
        if (!packed)
            mscg_pack_panel(B, ldb, K, N, p, panel);
        if (pb && n < 16 && !packed) {      /* a bias the tile may read whole */
            memset(bc, 0, sizeof bc);
            memcpy(bc, pb, (size_t)n * sizeof(float));
            pb = bc;
        }
        /* blocks of 6 rows of a whole panel, then of 4; without packed weights to run single rows on later, the
         * last 1-3 rows too */
        for (i = 0; i < last; i += step) {
            const float *br = bias_row ? bias_row + i : 0;
            const int rows = M - i < 4 ? M - i : 4;
            step = n == 16 && last - i >= 6 ? 6 : 4;
            if (step == 6) {
                mscg_tile6x16(K, A + (long)i * lda, lda, b, C + (long)i * ldc + j, ldc, br, pb, relu);
            } else if (n == 16 && rows == 4) {
                mscg_tile4x16(K, A + (long)i * lda, lda, b, 16, C + (long)i * ldc + j, ldc, br, pb, relu, 4);
            } else {
                mscg_tile4x16(K, A + (long)i * lda, lda, b, 16, tmp, 16, br, pb, relu, rows);
                mscg_copy_cols(C + (long)i * ldc + j, ldc, tmp, 16, rows, n);
            }
        }
    }
    if (!packed)
        return;
    /* rows left over (all of them for a batch-1 dense layer): two panels at a time */
    for (i = m4; i < M; i++)
        for (p = 0; p < panels; p += 2) {
            const int j = 16 * p, n = N - j < 32 ? N - j : 32;
            const float *b0 = B + 16L * K * p, *br = bias_row ? bias_row + i : 0;
            if (p + 1 < panels)
                mscg_tile1x32(K, A + (long)i * lda, b0, b0 + 16L * K, tmp, br, bias_col ? bias_col + j : 0, relu);
            else
                mscg_tile1x16(K, A + (long)i * lda, b0, tmp, br, bias_col ? bias_col + j : 0, relu);
            memcpy(C + (long)i * ldc + j, tmp, (size_t)n * sizeof(float));
        }
#else
    for (p = 0; p < panels; p++) {
        const int j = 16 * p, n = N - j < 16 ? N - j : 16;
        if (!packed)
            mscg_pack_panel(B, ldb, K, N, p, panel);
        mscg_panel_scalar(0, M, j, n, K, A, lda, packed ? B + 16L * K * p : panel, C, ldc, bias_row, bias_col,
                          relu);
    }
#endif
}

/* Panel p of the column matrix of one image's convolution, as the matrix product reads it: column j (output
 * position oh*OW + ow, 16p <= j < 16p + 16) of row k = (c*kh + u)*kw + v is x[c][oh*sh - pt + u*dh][ow*sw - pl +
 * v*dw] (0 outside the image), stored at panel[16*k + j - 16p], zeros past OH*OW. With stride 1 the 16 positions
 * are runs of consecutive inputs of at most 16/OW + 2 output rows, and a row of the panel is a copy of each run
 * (zeros where it leaves the image); else a gather through the positions' coordinates, out-of-image ones reading
 * element 0 and storing 0 (no read outside). */
MSCG_FN void mscg_im2col_panel(const float *x, int C, int H, int W, int kh, int kw, int sh, int sw, int pt, int pl,
                               int dh, int dw, int OH, int OW, int p, float *panel)
{
    const int P = OH * OW, j0 = 16 * p, n = P - j0 < 16 ? P - j0 : 16;
    int ihs[16], iws[16], seg_t[17], nseg = 0, c, u, v, t, s;
    for (t = 0; t < 16; t++) {
        ihs[t] = t < n ? (j0 + t) / OW * sh - pt : -(1 << 28);     /* past the end: never inside */
        iws[t] = t < n ? (j0 + t) % OW * sw - pl : 0;
        if (t < n && (t == 0 || (j0 + t) % OW == 0))
            seg_t[nseg++] = t;                                     /* a run starts at each new output row */
    }
    seg_t[nseg] = n;
    for (c = 0; c < C; c++) {
        const float *plane = x + (long)c * H * W;
        for (u = 0; u < kh; u++)
            for (v = 0; v < kw; v++, panel += 16) {
                if (sw != 1) {
                    for (t = 0; t < 16; t++) {
                        const int ih = ihs[t] + u * dh, iw = iws[t] + v * dw;
                        const int inside = (unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W;
                        const float value = plane[inside ? ih * W + iw : 0];
                        panel[t] = inside ? value : 0.0f;
                    }
                    continue;
                }
                for (s = 0; s < nseg; s++) {   /* a copy of the run's inputs [iw0, iw0 + len), zeros outside */
                    const int t0 = seg_t[s], len = seg_t[s + 1] - t0, ih = ihs[t0] + u * dh, iw0 = iws[t0] + v * dw;
                    const int lo = iw0 < 0 ? (-iw0 < len ? -iw0 : len) : 0, hi = W - iw0 < len ? W - iw0 : len;
                    float *dst = panel + t0;
                    if (ih < 0 || ih >= H || hi <= lo) {
                        for (t = 0; t < len; t++)
                            dst[t] = 0.0f;
                        continue;
                    }
                    if (lo == 0 && hi == 16) {             /* the common case: 16 inputs of one row */
                        const float *src = plane + (long)ih * W + iw0;
                        for (t = 0; t < 16; t++)
                            dst[t] = src[t];
                        continue;
                    }
                    for (t = 0; t < lo; t++)
                        dst[t] = 0.0f;
                    for (t = lo; t < hi; t++)
                        dst[t] = plane[(long)ih * W + iw0 + t];
                    for (t = hi; t < len; t++)
                        dst[t] = 0.0f;
                }
                for (t = n; t < 16; t++)
                    panel[t] = 0.0f;
            }
    }
}

/* The columns of one image's convolution: col[(c*kh + u)*kw + v][oh*OW + ow] = x[c][oh*sh - pt + u*dh]
 * [ow*sw - pl + v*dw], 0 outside the image; rows `ldcol` floats apart. */
MSCG_FN void mscg_im2col(const float *x, int C, int H, int W, int kh, int kw, int sh, int sw, int pt, int pl, int dh,
                        int dw, int OH, int OW, float *col, int ldcol)
{
    int c, u, v, oh, ow;
    for (c = 0; c < C; c++)
        for (u = 0; u < kh; u++)
            for (v = 0; v < kw; v++) {
                float *dst = col + (((long)c * kh + u) * kw + v) * ldcol;
                const float *plane = x + (long)c * H * W;
                for (oh = 0; oh < OH; oh++, dst += OW) {
                    const int ih = oh * sh - pt + u * dh;
                    if (ih < 0 || ih >= H) {
                        for (ow = 0; ow < OW; ow++)
                            dst[ow] = 0.0f;
                        continue;
                    }
                    if (sw == 1) {
                        /* a shifted copy of the row, zeros where it leaves the image */
                        const int iw0 = -pl + v * dw;
                        const int lo = iw0 < 0 ? -iw0 : 0, hi = W - iw0 < OW ? W - iw0 : OW;
                        for (ow = 0; ow < lo && ow < OW; ow++)
                            dst[ow] = 0.0f;
                        for (ow = lo; ow < hi; ow++)
                            dst[ow] = plane[(long)ih * W + iw0 + ow];
                        for (ow = hi > lo ? hi : lo; ow < OW; ow++)
                            dst[ow] = 0.0f;
                    } else {
                        for (ow = 0; ow < OW; ow++) {
                            const int iw = ow * sw - pl + v * dw;
                            dst[ow] = iw >= 0 && iw < W ? plane[(long)ih * W + iw] : 0.0f;
                        }
                    }
                }
            }
}

/* 2-d convolution of x (N, C, H, W) with w (O, C/groups, kh, kw) (+ bias) [+ ReLU] into y (N, O, OH, OW), per image
 * and group one matrix product of the weights with the column matrix. With `whole` (a column matrix small enough for
 * L2: LeNet's) the matrix is built at once, row by row (shifted copies of input rows), into `work` (K*OH*OW floats,
 * then 16*K for the panel the product packs); else one 16-position panel at a time (`work`: 16*K floats, hot in L1)
 * is built and multiplied, so that a large feature map's column matrix never goes to memory. */
MSCG_FN void mscg_conv2d(const float *x, int N, int C, int H, int W, const float *w, const float *bias, int O, int kh,
                         int kw, int sh, int sw, int pt, int pl, int dh, int dw, int groups, float *y, int OH, int OW,
                         int relu, int whole, float *work)
{
    const int cg = C / groups, og = O / groups, K = cg * kh * kw, P = OH * OW;
    int n, g, p;
    for (n = 0; n < N; n++)
        for (g = 0; g < groups; g++) {
            const float *xg = x + ((long)n * C + (long)g * cg) * H * W, *wg = w + (long)g * og * K;
            const float *bg = bias ? bias + (long)g * og : 0;
            float *yg = y + ((long)n * O + (long)g * og) * P;
            if (whole) {
                mscg_im2col(xg, cg, H, W, kh, kw, sh, sw, pt, pl, dh, dw, OH, OW, work, P);
                mscg_gemm(og, P, K, wg, K, work, P, 0, work + (long)K * P, yg, P, bg, 0, relu);
                continue;
            }
            for (p = 0; p < (P + 15) / 16; p++) {
                mscg_im2col_panel(xg, cg, H, W, kh, kw, sh, sw, pt, pl, dh, dw, OH, OW, p, work);
                mscg_gemm(og, P - 16 * p < 16 ? P - 16 * p : 16, K, wg, K, work, 16, 1, 0, yg + 16 * p, P, bg, 0, relu);
            }
        }
}

/* The epilogue of a block of output channels: rows [0, rows) x columns [0, n) of t (16 floats a row) + bias[i]
 * (+ res[i][j], rows ldy apart) [then ReLU] into y. */
MSCG_FN void mscg_conv_store(const float *t, int rows, int n, const float *bias, const float *res, int relu, float *y,
                             long ldy)
{
    int i, j;
#ifdef MSCG_VECTOR
    if (n == 16) {      /* whole rows of 16: two vectors each, the ReLU as a mask */
        for (i = 0; i < rows; i++) {
            const mscg_v8 b = MSCG_SPLAT(bias ? bias[i] : 0.0f);
            mscg_v8 v0 = *(const mscg_v8 *)(t + 16 * i) + b, v1 = *(const mscg_v8 *)(t + 16 * i + 8) + b;
            float *yr = y + i * ldy;
            if (res) {
                v0 += *(const mscg_v8 *)(res + i * ldy);
                v1 += *(const mscg_v8 *)(res + i * ldy + 8);
            }
            if (relu) {
                v0 = (mscg_v8)((mscg_i8)v0 & (mscg_i8)(v0 > MSCG_SPLAT(0.0f)));
                v1 = (mscg_v8)((mscg_i8)v1 & (mscg_i8)(v1 > MSCG_SPLAT(0.0f)));
            }
            *(mscg_v8 *)yr = v0;
            *(mscg_v8 *)(yr + 8) = v1;
        }
        return;
    }
#endif
    for (i = 0; i < rows; i++) {
        const float b = bias ? bias[i] : 0.0f, *tr = t + 16 * i;
        float *yr = y + i * ldy;
        if (res) {
            const float *rr = res + i * ldy;
            for (j = 0; j < n; j++)
                yr[j] = tr[j] + b + rr[j];
        } else {
            for (j = 0; j < n; j++)
                yr[j] = tr[j] + b;
        }
        if (relu)
            for (j = 0; j < n; j++)
                yr[j] = yr[j] > 0.0f ? yr[j] : 0.0f;
    }
}

/* one k step of the block: the panel row's two vectors, then a weight's broadcast into row r's accumulators */
#define MSCG_BLOCK_LOADS const mscg_v8 b0 = *(const mscg_v8 *)b, b1 = *(const mscg_v8 *)(b + 8); mscg_v8 s
#define MSCG_BLOCK_ROW(r) s = MSCG_SPLAT(a[r]); c##r##0 += s * b0; c##r##1 += s * b1
/* t (R x 16, R = 6 or 4) = a (K x R: a block of R output channels' weights, packed at generation time) x b (a
 * 16-position panel, K rows of 16). With vectors: 12 (or 8) accumulators in registers over the whole K loop, each
 * k one load of the block's R weights' broadcasts and two of the panel's row. */
MSCG_FN void mscg_conv_block(int K, int R, const float *a, const float *b, float *t)
{
#ifdef MSCG_VECTOR
    mscg_v8 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    int k;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = MSCG_SPLAT(0.0f);
    if (R == 6) {
        for (k = 0; k < K; k++, a += 6, b += 16) {
            MSCG_BLOCK_LOADS;
            MSCG_BLOCK_ROW(0); MSCG_BLOCK_ROW(1); MSCG_BLOCK_ROW(2); MSCG_BLOCK_ROW(3); MSCG_BLOCK_ROW(4);
            MSCG_BLOCK_ROW(5);
        }
    } else {
        for (k = 0; k < K; k++, a += 4, b += 16) {
            MSCG_BLOCK_LOADS;
            MSCG_BLOCK_ROW(0); MSCG_BLOCK_ROW(1); MSCG_BLOCK_ROW(2); MSCG_BLOCK_ROW(3);
        }
    }
    *(mscg_v8 *)t = c00; *(mscg_v8 *)(t + 8) = c01; *(mscg_v8 *)(t + 16) = c10; *(mscg_v8 *)(t + 24) = c11;
    *(mscg_v8 *)(t + 32) = c20; *(mscg_v8 *)(t + 40) = c21; *(mscg_v8 *)(t + 48) = c30; *(mscg_v8 *)(t + 56) = c31;
    *(mscg_v8 *)(t + 64) = c40; *(mscg_v8 *)(t + 72) = c41; *(mscg_v8 *)(t + 80) = c50; *(mscg_v8 *)(t + 88) = c51;
#else
    int i, j, k;
    for (i = 0; i < R; i++)
        for (j = 0; j < 16; j++) {
            float acc = 0.0f;
            for (k = 0; k < K; k++)
                acc += a[(long)k * R + i] * b[16L * k + j];
            t[16 * i + j] = acc;
        }
#endif
}

#ifdef MSCG_VECTOR
#define MSCG_FMA_ROWS(R)                                                                                     \
    do {                                                                                                     \
        mscg_v8 s_;                                                                                          \
        s_ = MSCG_SPLAT(a[0]); c00 += s_ * b0; c01 += s_ * b1;                                               \
        s_ = MSCG_SPLAT(a[1]); c10 += s_ * b0; c11 += s_ * b1;                                               \
        s_ = MSCG_SPLAT(a[2]); c20 += s_ * b0; c21 += s_ * b1;                                               \
        s_ = MSCG_SPLAT(a[3]); c30 += s_ * b0; c31 += s_ * b1;                                               \
        if ((R) == 6) {                                                                                      \
            s_ = MSCG_SPLAT(a[4]); c40 += s_ * b0; c41 += s_ * b1;                                           \
            s_ = MSCG_SPLAT(a[5]); c50 += s_ * b0; c51 += s_ * b1;                                           \
        }                                                                                                    \
    } while (0)
#define MSCG_DIRECT_LOOP(R)                                                                                  \
    for (c = 0; c < cg; c++, x0 += plane, x1 += plane)                                                       \
        for (u = 0; u < kh; u++) {                                                                           \
            const float *r0 = x0 + (long)u * dh * PW, *r1 = x1 + (long)u * dh * PW;                          \
            for (v = 0; v < kw; v++, a += (R)) {                                                             \
                const mscg_v8 b0 = *(const mscg_v8 *)(r0 + v * dw), b1 = *(const mscg_v8 *)(r1 + v * dw);    \
                MSCG_FMA_ROWS(R);                                                                            \
            }                                                                                                \
        }
/* the same for 3 taps a row, one input column apart (3x3 convolutions): unrolled */
#define MSCG_DIRECT_LOOP3(R)                                                                                 \
    for (c = 0; c < cg; c++, x0 += plane, x1 += plane)                                                       \
        for (u = 0; u < kh; u++) {                                                                           \
            const float *r0 = x0 + (long)u * dh * PW, *r1 = x1 + (long)u * dh * PW;                          \
            mscg_v8 b0 = *(const mscg_v8 *)r0, b1 = *(const mscg_v8 *)r1;                                    \
            MSCG_FMA_ROWS(R);                                                                                \
            a += (R);                                                                                        \
            b0 = *(const mscg_v8 *)(r0 + 1); b1 = *(const mscg_v8 *)(r1 + 1);                                \
            MSCG_FMA_ROWS(R);                                                                                \
            a += (R);                                                                                        \
            b0 = *(const mscg_v8 *)(r0 + 2); b1 = *(const mscg_v8 *)(r1 + 2);                                \
            MSCG_FMA_ROWS(R);                                                                                \
            a += (R);                                                                                        \
        }
#endif

/* t (R x 16) = a (K x R, K = cg*kh*kw) x the column-matrix panel of 16 positions read in place from a padded input
 * (cg planes of PH x PW, `plane` floats apart): positions 0-7 start at x0, 8-15 at x1 (each 8 consecutive inputs
 * of one row: stride 1, and the rows of the output a multiple of 8 long); row k = (c*kh + u)*kw + v of the panel
 * is the 8 + 8 floats at x0 / x1 + c*plane + u*dh*PW + v*dw. */
MSCG_FN void mscg_conv_block_direct(int cg, int kh, int kw, int dh, int dw, long plane, int PW, int R, const float *a,
                                    const float *x0, const float *x1, float *t)
{
    int c, u, v;
#ifdef MSCG_VECTOR
    mscg_v8 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = MSCG_SPLAT(0.0f);
    if (kw == 3 && dw == 1) {
        if (R == 6) {
            MSCG_DIRECT_LOOP3(6)
        } else {
            MSCG_DIRECT_LOOP3(4)
        }
    } else if (R == 6) {
        MSCG_DIRECT_LOOP(6)
    } else {
        MSCG_DIRECT_LOOP(4)
    }
    *(mscg_v8 *)t = c00; *(mscg_v8 *)(t + 8) = c01; *(mscg_v8 *)(t + 16) = c10; *(mscg_v8 *)(t + 24) = c11;
    *(mscg_v8 *)(t + 32) = c20; *(mscg_v8 *)(t + 40) = c21; *(mscg_v8 *)(t + 48) = c30; *(mscg_v8 *)(t + 56) = c31;
    *(mscg_v8 *)(t + 64) = c40; *(mscg_v8 *)(t + 72) = c41; *(mscg_v8 *)(t + 80) = c50; *(mscg_v8 *)(t + 88) = c51;
#else
    int i, j;
    for (i = 0; i < R * 16; i++)
        t[i] = 0.0f;
    for (c = 0; c < cg; c++, x0 += plane, x1 += plane)
        for (u = 0; u < kh; u++)
            for (v = 0; v < kw; v++, a += R)
                for (i = 0; i < R; i++)
                    for (j = 0; j < 16; j++)
                        t[16 * i + j] += a[i] * (j < 8 ? x0 : x1)[(long)u * dh * PW + v * dw + (j & 7)];
#endif
}

/* x's cg planes (H x W) with pt rows / pl columns of zeros before and the rest up to PH x PW after, into xp. */
MSCG_FN void mscg_pad_planes(const float *x, int cg, int H, int W, int pt, int pl, int PH, int PW, float *xp)
{
    int c, i, j;
    for (c = 0; c < cg; c++, x += (long)H * W)
        for (i = 0; i < PH; i++, xp += PW) {
            const int ih = i - pt;
            if (ih < 0 || ih >= H) {
                for (j = 0; j < PW; j++)
                    xp[j] = 0.0f;
                continue;
            }
            for (j = 0; j < pl; j++)
                xp[j] = 0.0f;
            for (j = 0; j < W; j++)
                xp[pl + j] = x[(long)ih * W + j];
            for (j = pl + W; j < PW; j++)
                xp[j] = 0.0f;
        }
}

/* 2-d convolution of x (N, C, H, W) into y (N, O, OH, OW) with its weight packed by the generator: per group,
 * blocks of 6 output channels (the last one of 4 when at most 4 remain), each K x R (R = 6 or 4, zero rows past
 * the group's channels) with K = C/groups*kh*kw. One 16-position panel of the column matrix is built at a time
 * (`work`: 16*K floats) and every block multiplies it; the epilogue adds the bias, `res` (a tensor of y's shape:
 * a residual connection's other operand, or NULL) and applies the ReLU. */
MSCG_FN void mscg_conv2d_packed(const float *x, int N, int C, int H, int W, const float *wp, const float *bias,
                                int O, int kh, int kw, int sh, int sw, int pt, int pl, int dh, int dw, int groups,
                                float *y, int OH, int OW, int relu, const float *res, float *work)
{
    const int cg = C / groups, og = O / groups, K = cg * kh * kw, P = OH * OW;
    const int direct = sh == 1 && sw == 1 && OW % 8 == 0;
    const int PH = OH + (kh - 1) * dh, PW = OW + (kw - 1) * dw;     /* the padded input of the direct kernel */
    const long group_w = (long)((og / 6) * 6 + (og % 6 ? (og % 6 > 4 ? 6 : 4) : 0)) * K;
    float t[6 * 16] MSCG_TILE_ALIGN;
    int n, g, p, o;
    for (n = 0; n < N; n++)
        for (g = 0; g < groups; g++) {
            const float *xg = x + ((long)n * C + (long)g * cg) * H * W;
            const long base = ((long)n * O + (long)g * og) * P;
            if (direct)
                mscg_pad_planes(xg, cg, H, W, pt, pl, PH, PW, work);
            for (p = 0; p < (P + 15) / 16; p++) {
                const int cols = P - 16 * p < 16 ? P - 16 * p : 16, j1 = 16 * p + (cols > 8 ? 8 : 0);
                const float *a = wp + g * group_w;
                const float *x0 = work + (long)(16 * p / OW) * PW + 16 * p % OW;
                const float *x1 = work + (long)(j1 / OW) * PW + j1 % OW;
                if (!direct)
                    mscg_im2col_panel(xg, cg, H, W, kh, kw, sh, sw, pt, pl, dh, dw, OH, OW, p, work);
                for (o = 0; o < og; o += 6) {
                    const int rows = og - o < 6 ? og - o : 6, R = rows > 4 ? 6 : 4;
                    const long at = base + (long)o * P + 16L * p;
                    if (direct)
                        mscg_conv_block_direct(cg, kh, kw, dh, dw, (long)PH * PW, PW, R, a, x0, x1, t);
                    else
                        mscg_conv_block(K, R, a, work, t);
                    mscg_conv_store(t, rows, cols, bias ? bias + (long)g * og + o : 0, res ? res + at : 0, relu,
                                    y + at, P);
                    a += (long)K * R;
                }
            }
        }
}

/* 2x2 max pooling, stride 2, no padding (an odd last row or column dropped), [then ReLU]. */
MSCG_FN void mscg_maxpool2x2(const float *x, int planes, int H, int W, float *y, int OH, int OW, int relu)
{
    int p, i, j;
    for (p = 0; p < planes; p++) {
        const float *xp = x + (long)p * H * W;
        float *yp = y + (long)p * OH * OW;
        for (i = 0; i < OH; i++) {
            const float *r0 = xp + (long)2 * i * W, *r1 = r0 + W;
            for (j = 0; j < OW; j++) {
                float a = r0[2 * j] > r0[2 * j + 1] ? r0[2 * j] : r0[2 * j + 1];
                const float b = r1[2 * j] > r1[2 * j + 1] ? r1[2 * j] : r1[2 * j + 1];
                a = a > b ? a : b;
                yp[(long)i * OW + j] = relu ? mscg_relu(a) : a;
            }
        }
    }
}

/* Max (mode 0) or average (mode 1) pooling of each of `planes` H x W planes; pads top/left pt, pl and the padded
 * size H + pt + pb, W + pl + pr bound the windows (ceil mode's last window is clipped to it). Average: divide by
 * `divisor` if > 0, else by the window inside the padded input (count_include_pad) or inside the image. */
MSCG_FN void mscg_pool2d(const float *x, int planes, int H, int W, float *y, int OH, int OW, int kh, int kw, int sh,
                        int sw, int pt, int pl, int pb, int pr, int dh, int dw, int mode, int count_include_pad,
                        int divisor, int relu)
{
    int p, i, j, u, v;
    for (p = 0; p < planes; p++) {
        const float *xp = x + (long)p * H * W;
        float *yp = y + (long)p * OH * OW;
        for (i = 0; i < OH; i++)
            for (j = 0; j < OW; j++) {
                const int h0 = i * sh - pt, w0 = j * sw - pl;
                float acc = mode == 0 ? -INFINITY : 0.0f;
                int inside = 0, padded = 0;
                for (u = 0; u < kh; u++) {
                    const int ih = h0 + u * dh;
                    if (ih >= H + pb)
                        break;
                    for (v = 0; v < kw; v++) {
                        const int iw = w0 + v * dw;
                        if (iw >= W + pr)
                            break;
                        padded++;
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                            continue;
                        inside++;
                        if (mode == 0) {
                            const float t = xp[(long)ih * W + iw];
                            acc = t > acc || t != t ? t : acc;
                        } else {
                            acc += xp[(long)ih * W + iw];
                        }
                    }
                }
                if (mode == 1) {
                    const int d = divisor > 0 ? divisor : count_include_pad ? padded : inside;
                    acc = d > 0 ? acc / (float)d : 0.0f;
                }
                yp[(long)i * OW + j] = relu ? mscg_relu(acc) : acc;
            }
    }
}

/* Adaptive average pooling: output cell (i, j) averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for
 * columns. */
MSCG_FN void mscg_adaptive_avgpool2d(const float *x, int planes, int H, int W, float *y, int OH, int OW)
{
    int p, i, j, u, v;
    for (p = 0; p < planes; p++) {
        const float *xp = x + (long)p * H * W;
        for (i = 0; i < OH; i++) {
            const int h0 = i * H / OH, h1 = ((i + 1) * H + OH - 1) / OH;
            for (j = 0; j < OW; j++) {
                const int w0 = j * W / OW, w1 = ((j + 1) * W + OW - 1) / OW;
                float acc = 0.0f;
                for (u = h0; u < h1; u++)
                    for (v = w0; v < w1; v++)
                        acc += xp[(long)u * W + v];
                y[((long)p * OH + i) * OW + j] = acc / (float)((h1 - h0) * (w1 - w0));
            }
        }
    }
}

/* Softmax (or log-softmax) of x viewed as (outer, n, inner) along its middle axis. */
MSCG_FN void mscg_softmax(const float *x, float *y, long outer, int n, long inner, int log_softmax)
{
    long o, r;
    int k;
    for (o = 0; o < outer; o++)
        for (r = 0; r < inner; r++) {
            const float *xs = x + o * n * inner + r;
            float *ys = y + o * n * inner + r;
            float mx = -INFINITY, sum = 0.0f;
            for (k = 0; k < n; k++)
                mx = xs[k * inner] > mx ? xs[k * inner] : mx;
            for (k = 0; k < n; k++) {
                const float e = expf(xs[k * inner] - mx);
                sum += e;
                if (!log_softmax)
                    ys[k * inner] = e;
            }
            for (k = 0; k < n; k++) {
                if (log_softmax)
                    ys[k * inner] = xs[k * inner] - mx - logf(sum);
                else
                    ys[k * inner] /= sum;
            }
        }
}


/* Layer normalization of `rows` rows of n values: y = (x - mean) * rstd * gamma + beta (gamma / beta may be 0:
 * 1 / 0), the statistics accumulated in double; mean and rstd (one per row) are stored when not 0. */
MSCG_FN void mscg_layer_norm(const float *x, long rows, long n, const float *gamma, const float *beta, float eps,
                             float *y, float *mean, float *rstd)
{
    long r, i;
    for (r = 0; r < rows; r++) {
        const float *xr = x + r * n;
        float *yr = y + r * n;
        double s = 0.0, ss = 0.0;
        float m, rs;
        for (i = 0; i < n; i++)
            s += xr[i];
        m = (float)(s / (double)n);
        for (i = 0; i < n; i++)
            ss += ((double)xr[i] - m) * ((double)xr[i] - m);
        rs = (float)(1.0 / sqrt(ss / (double)n + (double)eps));
        for (i = 0; i < n; i++) {
            const float v = (xr[i] - m) * rs;
            yr[i] = v * (gamma ? gamma[i] : 1.0f) + (beta ? beta[i] : 0.0f);
        }
        if (mean)
            mean[r] = m;
        if (rstd)
            rstd[r] = rs;
    }
}
