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
/* a scalar broadcast to 8 lanes (no vector is passed or returned by value: no ABI dependence on -mavx) */
#define MSCG_SPLAT(v) (((mscg_v8){0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}) + (v))
#endif

MSCG_FN float mscg_relu(float v) { return v > 0.0f ? v : 0.0f; }

/* The row's epilogue: C[i][0..n) (+ bias of the row or of each column), then ReLU if asked. */
MSCG_FN void mscg_gemm_scalar_rows(int m0, int m1, int n0, int n1, int K, const float *A, int lda, const float *B,
                                  int ldb, float *C, int ldc, const float *bias_row, const float *bias_col,
                                  int relu)
{
    int i, j, k;
    for (i = m0; i < m1; i++) {
        float *c = C + (long)i * ldc;
        for (j = n0; j < n1; j++)
            c[j] = bias_row ? bias_row[i] : bias_col ? bias_col[j] : 0.0f;
        for (k = 0; k < K; k++) {
            const float a = A[(long)i * lda + k];
            const float *b = B + (long)k * ldb;
            for (j = n0; j < n1; j++)
                c[j] += a * b[j];
        }
        if (relu)
            for (j = n0; j < n1; j++)
                c[j] = mscg_relu(c[j]);
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

/* c[0..4) x [0..16) = a[0..4) x b (+ brow[i] | + bcol[j]): 8 accumulators in registers over the whole K loop. */
MSCG_FN void mscg_tile4x16(int K, const float *a, int lda, const float *b, int ldb, float *c, int ldc,
                          const float *brow, const float *bcol, int relu)
{
    const float *a0 = a, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    mscg_v8 c00, c01, c10, c11, c20, c21, c30, c31, r[2];
    int k;
    if (brow) {
        c00 = c01 = MSCG_SPLAT(brow[0]); c10 = c11 = MSCG_SPLAT(brow[1]);
        c20 = c21 = MSCG_SPLAT(brow[2]); c30 = c31 = MSCG_SPLAT(brow[3]);
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

/* One row, 32 columns (4 accumulators: the matrix-vector product of a batch-1 dense layer). */
MSCG_FN void mscg_tile1x32(int K, const float *a, const float *b, int ldb, float *c, const float *brow,
                          const float *bcol, int relu)
{
    mscg_v8 acc[4];
    int k, v;
    for (v = 0; v < 4; v++)
        mscg_tile_init(acc + v, brow, bcol ? bcol + 8 * v : 0);
    for (k = 0; k < K; k++, b += ldb) {
        const mscg_v8 s = MSCG_SPLAT(a[k]);
        acc[0] += s * *(const mscg_v8 *)b; acc[1] += s * *(const mscg_v8 *)(b + 8);
        acc[2] += s * *(const mscg_v8 *)(b + 16); acc[3] += s * *(const mscg_v8 *)(b + 24);
    }
    mscg_store_tile(c, acc, 4, relu);
}

/* One row, 8 columns. */
MSCG_FN void mscg_tile1x8(int K, const float *a, const float *b, int ldb, float *c, const float *brow,
                         const float *bcol, int relu)
{
    mscg_v8 acc;
    int k;
    mscg_tile_init(&acc, brow, bcol);
    for (k = 0; k < K; k++, b += ldb)
        acc += MSCG_SPLAT(a[k]) * *(const mscg_v8 *)b;
    mscg_store_tile(c, &acc, 1, relu);
}

MSCG_FN void mscg_copy_cols(float *c, int ldc, const float *t, int ldt, int rows, int n)
{
    int i;
    for (i = 0; i < rows; i++)
        memcpy(c + (long)i * ldc, t + (long)i * ldt, (size_t)n * sizeof(float));
}
#endif

/* C (M x N) = A (M x K) B (K x N) [+ bias_row[i] | + bias_col[j]] [then ReLU]; leading dims lda, ldb, ldc.
 * `padded`: every row of B (and bias_col) can be read up to N rounded up to 16 (the last columns then run as
 * whole vector tiles, the extra ones dropped); else they run as scalar loops. */
MSCG_FN void mscg_gemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc,
                      const float *bias_row, const float *bias_col, int relu, int padded)
{
#ifdef MSCG_VECTOR
    const int m4 = M / 4 * 4;
    float tmp[4 * 16];
    int i, j = 0;
    /* 16-column panels of B stay in L1 while every block of 4 rows of A passes over them */
    for (; j + 16 <= N; j += 16)
        for (i = 0; i < m4; i += 4)
            mscg_tile4x16(K, A + (long)i * lda, lda, B + j, ldb, C + (long)i * ldc + j, ldc,
                          bias_row ? bias_row + i : 0, bias_col ? bias_col + j : 0, relu);
    if (j < N && padded)
        for (i = 0; i < m4; i += 4) {
            mscg_tile4x16(K, A + (long)i * lda, lda, B + j, ldb, tmp, 16, bias_row ? bias_row + i : 0,
                          bias_col ? bias_col + j : 0, relu);
            mscg_copy_cols(C + (long)i * ldc + j, ldc, tmp, 16, 4, N - j);
        }
    else if (j < N)
        mscg_gemm_scalar_rows(0, m4, j, N, K, A, lda, B, ldb, C, ldc, bias_row, bias_col, relu);
    for (i = m4; i < M; i++) {
        const float *a = A + (long)i * lda, *br = bias_row ? bias_row + i : 0;
        float *c = C + (long)i * ldc;
        for (j = 0; j + 32 <= N; j += 32)
            mscg_tile1x32(K, a, B + j, ldb, c + j, br, bias_col ? bias_col + j : 0, relu);
        for (; j + 8 <= N; j += 8)
            mscg_tile1x8(K, a, B + j, ldb, c + j, br, bias_col ? bias_col + j : 0, relu);
        if (j < N && padded) {
            mscg_tile1x8(K, a, B + j, ldb, tmp, br, bias_col ? bias_col + j : 0, relu);
            mscg_copy_cols(c + j, ldc, tmp, 8, 1, N - j);
        } else if (j < N) {
            mscg_gemm_scalar_rows(i, i + 1, j, N, K, A, lda, B, ldb, C, ldc, bias_row, bias_col, relu);
        }
    }
#else
    (void)padded;
    mscg_gemm_scalar_rows(0, M, 0, N, K, A, lda, B, ldb, C, ldc, bias_row, bias_col, relu);
#endif
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

/* 2-d convolution of x (N, C, H, W) with w (O, C/groups, kh, kw) (+ bias) [+ ReLU] into y (N, O, OH, OW):
 * im2col into `col` (C/groups*kh*kw rows of OH*OW rounded up to 16 floats) and one matrix product per image and
 * group; a 1x1 stride-1 unpadded convolution reads x itself as the column matrix. */
MSCG_FN void mscg_conv2d(const float *x, int N, int C, int H, int W, const float *w, const float *bias, int O, int kh,
                        int kw, int sh, int sw, int pt, int pl, int dh, int dw, int groups, float *y, int OH, int OW,
                        int relu, float *col)
{
    const int cg = C / groups, og = O / groups, K = cg * kh * kw, P = OH * OW, P16 = (P + 15) / 16 * 16;
    const int direct = kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && OH == H && OW == W;
    int n, g;
    for (n = 0; n < N; n++)
        for (g = 0; g < groups; g++) {
            const float *xg = x + ((long)n * C + (long)g * cg) * H * W;
            if (direct) {
                mscg_gemm(og, P, K, w + (long)g * og * K, K, xg, P, y + ((long)n * O + (long)g * og) * P, P,
                          bias ? bias + (long)g * og : 0, 0, relu, P == P16);
            } else {
                mscg_im2col(xg, cg, H, W, kh, kw, sh, sw, pt, pl, dh, dw, OH, OW, col, P16);
                mscg_gemm(og, P, K, w + (long)g * og * K, K, col, P16, y + ((long)n * O + (long)g * og) * P, P,
                          bias ? bias + (long)g * og : 0, 0, relu, 1);
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
