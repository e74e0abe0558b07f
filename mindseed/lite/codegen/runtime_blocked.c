/* mindseed codegen runtime, continued (appended to runtime.c in the generated source): the blocked layout's
 * kernels. */

/* ------------------------------------------------------------------ the blocked layout (NCHW8c, a zero border)
 * A value between convolutions is stored per image as CB blocks of 8 channels, each (H + 2B) x (W + 2B) positions
 * of 8 floats (the channels of the block), with a border of B positions of zeros around the image: a convolution
 * with padding <= B reads its input in place, a position's 8 channels are one vector (the bias, the residual
 * operand and the ReLU of the epilogue are whole-vector operations), and the weights are read as vectors of 8
 * output channels broadcast against one input value. Channels past the value's count hold zeros. */

/* x (N, C, H, W) into the blocked layout (CB blocks, border B) at xb. */
MSCG_FN void mscg_to_blocked(const float *x, int N, int C, int H, int W, int CB, int B, float *xb)
{
    const int PH = H + 2 * B, PW = W + 2 * B;
    int n, cb, i, j, l;
    for (n = 0; n < N; n++)
        for (cb = 0; cb < CB; cb++) {
            float *yb = xb + ((long)n * CB + cb) * PH * PW * 8;
            for (i = 0; i < PH * PW * 8; i++)
                yb[i] = 0.0f;
            for (l = 0; l < 8 && cb * 8 + l < C; l++) {
                const float *xp = x + ((long)n * C + cb * 8 + l) * H * W;
                for (i = 0; i < H; i++)
                    for (j = 0; j < W; j++)
                        yb[((long)(i + B) * PW + j + B) * 8 + l] = xp[(long)i * W + j];
            }
        }
}

/* The mean of each channel's H x W image of a blocked value (CB blocks, border B): y (N, C). */
MSCG_FN void mscg_blocked_mean(const float *xb, int N, int C, int H, int W, int CB, int B, float *y)
{
    const int PW = W + 2 * B;
    const long plane = (long)(H + 2 * B) * PW * 8;
    int n, c, i, j;
    for (n = 0; n < N; n++)
        for (c = 0; c < C; c++) {
            const float *p = xb + ((long)n * CB + c / 8) * plane + c % 8;
            float s = 0.0f;
            for (i = 0; i < H; i++)
                for (j = 0; j < W; j++)
                    s += p[((long)(i + B) * PW + j + B) * 8];
            y[(long)n * C + c] = s / (float)(H * W);
        }
}

/* Zero the border of one blocked image (CB blocks of OPH x OPW positions, border B): B rows above and below, B
 * columns left and right. */
MSCG_FN void mscg_blocked_border(float *y, int CB, int OPH, int OPW, int B)
{
    const long y_block = (long)OPH * OPW * 8;
    int cb, oh, i;
    for (cb = 0; cb < CB; cb++) {
        float *yb = y + cb * y_block;
        for (i = 0; i < B * OPW * 8; i++)
            yb[i] = yb[(long)(OPH - B) * OPW * 8 + i] = 0.0f;
        for (oh = B; oh < OPH - B; oh++)
            for (i = 0; i < B * 8; i++)
                yb[(long)oh * OPW * 8 + i] = yb[((long)oh * OPW + OPW - B) * 8 + i] = 0.0f;
    }
}

#ifdef MSCG_VECTOR
/* one output position's vector of 8 channels: + bias (+ the residual) [then ReLU], stored */
#define MSCG_BL_STORE(acc, bv, dst, rsrc)                                                                    \
    do {                                                                                                     \
        mscg_v8 r_ = (acc) + (bv);                                                                           \
        if (res)                                                                                             \
            r_ += *(const mscg_v8 *)(rsrc);                                                                  \
        if (relu)                                                                                            \
            r_ = (mscg_v8)((mscg_i8)r_ & (mscg_i8)(r_ > MSCG_SPLAT(0.0f)));                                  \
        *(mscg_v8 *)(dst) = r_;                                                                              \
    } while (0)

/* NP (<= 6, a constant where it is inlined) output positions x 2 blocks of output channels: 12 accumulators over
 * the whole K loop; each step broadcasts one input value of each position against the two blocks' weight vectors.
 * x + xo[j]: position j's window origin in the padded input; y + yo[j] (and res + yo[j]): its output vector. */
static inline __attribute__((always_inline)) void mscg_bl_tile(const int NP, int ICB, int KH, int KW,
    long icb_stride, int PW, const float *x, const long *xo, const float *w, const float *bias,
    const float *res, float *y, const long *yo, long y_block, int relu)
{
    mscg_v8 a0[6], a1[6];
    int j, icb, u, c;
    for (j = 0; j < 6; j++)
        a0[j] = a1[j] = MSCG_SPLAT(0.0f);
    for (icb = 0; icb < ICB; icb++)
        for (u = 0; u < KH; u++, w += 128 * KW) {
            /* a row of the window: its KW positions' 8 channels are KW*8 consecutive floats */
            const float *xr = x + icb * icb_stride + (long)u * PW * 8;
            /* not unrolled: unrolled, GCC keeps the input values across steps and spills */
#pragma GCC unroll 1
            for (c = 0; c < 8 * KW; c++) {
                const mscg_v8 wa = *(const mscg_v8 *)(w + 16 * c), wb = *(const mscg_v8 *)(w + 16 * c + 8);
#pragma GCC unroll 6
                for (j = 0; j < 6; j++)
                    if (j < NP) {
                        const float e = xr[xo[j] + c];
                        const mscg_v8 s = {e, e, e, e, e, e, e, e};   /* a broadcast load (MSCG_SPLAT adds) */
                        a0[j] += s * wa;
                        a1[j] += s * wb;
                    }
            }
        }
    {
        const mscg_v8 b0 = *(const mscg_v8 *)bias, b1 = *(const mscg_v8 *)(bias + 8);
#pragma GCC unroll 6
        for (j = 0; j < 6; j++)
            if (j < NP) {
                MSCG_BL_STORE(a0[j], b0, y + yo[j], res + yo[j]);
                MSCG_BL_STORE(a1[j], b1, y + y_block + yo[j], res + y_block + yo[j]);
            }
    }
}

/* CALL(np) with np (1..6) a constant: each register tile width its own inlined copy */
#define MSCG_BY_WIDTH(np, CALL)                                                                              \
    do {                                                                                                     \
        switch (np) {                                                                                        \
        case 6: CALL(6); break;                                                                              \
        case 5: CALL(5); break;                                                                              \
        case 4: CALL(4); break;                                                                              \
        case 3: CALL(3); break;                                                                              \
        case 2: CALL(2); break;                                                                              \
        default: CALL(1); break;                                                                             \
        }                                                                                                    \
    } while (0)

#define MSCG_BL_CALL(np)                                                                                     \
    mscg_bl_tile(np, ICB, KH, KW, icb_stride, PW, xn, xo, wp, bias + 8 * ob,                                  \
                 rn ? rn + ob * y_block : 0, yn + ob * y_block, yo, y_block, relu)
#endif

/* 2-d convolution (groups 1, dilation 1, padding pt / pl <= B) of a blocked x (ICB blocks, H x W, border B) into a
 * blocked y (OCB blocks, an even count, OH x OW, border B) with the weight packed by the generator as OCB/2 x ICB x
 * KH x KW blocks of 8 x 16 (input channel, the pair of blocks' output channels) and the bias padded to OCB*8:
 * + bias (+ res, a blocked value of y's geometry) [then ReLU]. The output's border is zeroed. */
MSCG_FN void mscg_conv2d_blocked(const float *x, int N, int ICB, int H, int W, const float *w, const float *bias,
                                 int OCB, int KH, int KW, int S, int pt, int pl, int B, float *y, int OH, int OW,
                                 int relu, const float *res)
{
    const int PW = W + 2 * B, OPH = OH + 2 * B, OPW = OW + 2 * B;
    const long icb_stride = (long)(H + 2 * B) * PW * 8, y_block = (long)OPH * OPW * 8;
    const long w_pair = (long)ICB * KH * KW * 128;
    const int P = OH * OW;
    int n, ob, p, i;
    for (n = 0; n < N; n++) {
        const float *xn = x + (long)n * ICB * icb_stride;
        float *yn = y + (long)n * OCB * y_block;
        const float *rn = res ? res + (long)n * OCB * y_block : 0;
        for (p = 0; p < P; p += 6) {        /* 6 output positions at a time, over rows: no short tile per row */
            const int np = P - p < 6 ? P - p : 6;
            long xo[6] = {0, 0, 0, 0, 0, 0}, yo[6] = {0, 0, 0, 0, 0, 0};
            for (i = 0; i < np; i++) {
                const int r = (p + i) / OW, q = (p + i) % OW;
                xo[i] = ((long)(r * S - pt + B) * PW + q * S + B - pl) * 8;
                yo[i] = ((long)(r + B) * OPW + q + B) * 8;
            }
            for (ob = 0; ob < OCB; ob += 2) {
                const float *wp = w + ob / 2 * w_pair;
#ifdef MSCG_VECTOR
                MSCG_BY_WIDTH(np, MSCG_BL_CALL);
#else
                for (i = 0; i < 16 * np; i++) {
                    const int blk = i % 16 / 8, lane = i % 8, j = i / 16;
                    const float *wb = wp + 8 * blk, *xr = xn + xo[j];
                    float acc = bias[8 * ob + i % 16];
                    int icb, u, v, c;
                    for (icb = 0; icb < ICB; icb++)
                        for (u = 0; u < KH; u++)
                            for (v = 0; v < KW; v++)
                                for (c = 0; c < 8; c++)
                                    acc += xr[icb * icb_stride + ((long)u * PW + v) * 8 + c]
                                           * wb[(((long)icb * KH + u) * KW + v) * 128 + 16 * c + lane];
                    if (rn)
                        acc += rn[(ob + blk) * y_block + yo[j] + lane];
                    yn[(ob + blk) * y_block + yo[j] + lane] = relu ? mscg_relu(acc) : acc;
                }
#endif
            }
        }
        mscg_blocked_border(yn, OCB, OPH, OPW, B);
    }
}
