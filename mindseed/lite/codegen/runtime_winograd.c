/* mindseed codegen runtime, continued (appended after runtime_blocked.c): 3x3 convolutions by Winograd's minimal
 * filtering F(2x2, 3x3), in the blocked layout (MindSpore Lite's CPU backend and MLAS-free NNPACK do the same).
 *
 * A 3x3, stride-1, padding-1 convolution of an image with even H and W is computed on 2x2 output tiles: each 4x4
 * input patch d (per input channel) becomes V = B^T d B, each (output, input) channel pair's 3x3 weight g becomes
 * U = G g G^T (at generation time, in double, rounded once), and the tile's output is A^T (sum over input channels
 * of U . V) A. The sums are 16 matrix products (one per position of the 4x4 transform) of (tiles x IC) by
 * (IC x OC): 16 multiply-adds per input channel, output channel and 4 outputs instead of 36 (2.25x fewer).
 *
 *   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]   G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
 *   A^T = [1 1 1 0; 0 1 -1 -1]
 *
 * Tiles go in chunks of MSCG_WG_TILES (row-major over the image): the chunk's V ([16][tiles][IC]) and the products
 * M ([16][tiles][OC]) stay in L1/L2; the transforms work on the 8 channels of a block at once (vector loops). */

#define MSCG_WG_TILES 12    /* tiles per chunk: two register tiles of 6 */

/* The scratch floats mscg_conv3x3_winograd needs for ICB / OCB blocks of 8 channels. */
#define MSCG_WG_SCRATCH(ICB, OCB) (16L * MSCG_WG_TILES * 8 * ((ICB) + (OCB)))

/* V of tile (ti, tj) of image x (ICB blocks, padded row PW positions, border B): 16 x 8 floats per block, stored
 * at v + (p * T + t) * IC + icb * 8 for p = 4 * row + column of the transform. The 2x2 outputs of tile (ti, tj),
 * block ob, from M: A^T m A + bias (+ res) [then ReLU], stored in y's block. */
#ifdef MSCG_VECTOR
#define MSCG_LD(p) (*(const mscg_v8 *)(p))
static inline __attribute__((always_inline)) void mscg_wg_input(const float *x, int ICB, long icb_stride, int PW,
                                                                int B, int ti, int tj, float *v, int T, int t)
{
    const long step = (long)T * ICB * 8;
    int icb, r;
    for (icb = 0; icb < ICB; icb++) {
        const float *d = x + icb * icb_stride + ((long)(2 * ti - 1 + B) * PW + 2 * tj - 1 + B) * 8;
        float *o = v + (long)t * ICB * 8 + icb * 8;
        mscg_v8 w[4][4];            /* each input row times B */
#pragma GCC unroll 4
        for (r = 0; r < 4; r++) {
            const mscg_v8 d0 = MSCG_LD(d + (long)r * PW * 8), d1 = MSCG_LD(d + (long)r * PW * 8 + 8);
            const mscg_v8 d2 = MSCG_LD(d + (long)r * PW * 8 + 16), d3 = MSCG_LD(d + (long)r * PW * 8 + 24);
            w[r][0] = d0 - d2;
            w[r][1] = d1 + d2;
            w[r][2] = d2 - d1;
            w[r][3] = d1 - d3;
        }
#pragma GCC unroll 4
        for (r = 0; r < 4; r++) {   /* B^T times the columns */
            *(mscg_v8 *)(o + r * step) = w[0][r] - w[2][r];
            *(mscg_v8 *)(o + (4 + r) * step) = w[1][r] + w[2][r];
            *(mscg_v8 *)(o + (8 + r) * step) = w[2][r] - w[1][r];
            *(mscg_v8 *)(o + (12 + r) * step) = w[1][r] - w[3][r];
        }
    }
}

static inline __attribute__((always_inline)) void mscg_wg_output(const float *m, int T, int t, int OC, int ob,
    const float *bias, const float *res, float *y, long y_block, int OPW, int B, int ti, int tj, int relu)
{
    const long step = (long)T * OC, at = ob * y_block + ((long)(2 * ti + B) * OPW + 2 * tj + B) * 8;
    const float *mp = m + (long)t * OC + ob * 8;
    const mscg_v8 bv = MSCG_LD(bias + ob * 8);
    mscg_v8 s0[4], s1[4];
    int c;
#pragma GCC unroll 4
    for (c = 0; c < 4; c++) {       /* A^T m */
        const mscg_v8 m0 = MSCG_LD(mp + c * step), m1 = MSCG_LD(mp + (4 + c) * step);
        const mscg_v8 m2 = MSCG_LD(mp + (8 + c) * step), m3 = MSCG_LD(mp + (12 + c) * step);
        s0[c] = m0 + m1 + m2;
        s1[c] = m1 - m2 - m3;
    }
    MSCG_BL_STORE(s0[0] + s0[1] + s0[2], bv, y + at, res + at);
    MSCG_BL_STORE(s0[1] - s0[2] - s0[3], bv, y + at + 8, res + at + 8);
    MSCG_BL_STORE(s1[0] + s1[1] + s1[2], bv, y + at + OPW * 8, res + at + OPW * 8);
    MSCG_BL_STORE(s1[1] - s1[2] - s1[3], bv, y + at + OPW * 8 + 8, res + at + OPW * 8 + 8);
}
#else
static void mscg_wg_input(const float *x, int ICB, long icb_stride, int PW, int B, int ti, int tj, float *v, int T,
                          int t)
{
    const int IC = ICB * 8;
    int icb, r, c, l;
    for (icb = 0; icb < ICB; icb++) {
        const float *d = x + icb * icb_stride + ((long)(2 * ti - 1 + B) * PW + 2 * tj - 1 + B) * 8;
        float tr[4][4][8];
        for (c = 0; c < 4; c++)         /* columns of B^T d */
            for (l = 0; l < 8; l++) {
                const float d0 = d[(0 * PW + c) * 8 + l], d1 = d[(1L * PW + c) * 8 + l];
                const float d2 = d[(2L * PW + c) * 8 + l], d3 = d[(3L * PW + c) * 8 + l];
                tr[0][c][l] = d0 - d2;
                tr[1][c][l] = d1 + d2;
                tr[2][c][l] = d2 - d1;
                tr[3][c][l] = d1 - d3;
            }
        for (r = 0; r < 4; r++) {       /* rows of (B^T d) B */
            float *o = v + ((long)(4 * r) * T + t) * IC + icb * 8;
            const long step = (long)T * IC;
            for (l = 0; l < 8; l++) {
                o[l] = tr[r][0][l] - tr[r][2][l];
                o[step + l] = tr[r][1][l] + tr[r][2][l];
                o[2 * step + l] = tr[r][2][l] - tr[r][1][l];
                o[3 * step + l] = tr[r][1][l] - tr[r][3][l];
            }
        }
    }
}

static void mscg_wg_output(const float *m, int T, int t, int OC, int ob, const float *bias, const float *res,
                           float *y, long y_block, int OPW, int B, int ti, int tj, int relu)
{
    const long step = (long)T * OC;
    const float *mp = m + (long)t * OC + ob * 8;
    float s[2][4][8];
    int c, i, j, l;
    for (c = 0; c < 4; c++)             /* A^T m */
        for (l = 0; l < 8; l++) {
            const float m0 = mp[c * step + l], m1 = mp[(4 + c) * step + l];
            const float m2 = mp[(8 + c) * step + l], m3 = mp[(12 + c) * step + l];
            s[0][c][l] = m0 + m1 + m2;
            s[1][c][l] = m1 - m2 - m3;
        }
    for (i = 0; i < 2; i++)             /* (A^T m) A */
        for (j = 0; j < 2; j++) {
            const long at = ob * y_block + ((long)(2 * ti + i + B) * OPW + 2 * tj + j + B) * 8;
            for (l = 0; l < 8; l++) {
                float r = (j == 0 ? s[i][0][l] + s[i][1][l] + s[i][2][l] : s[i][1][l] - s[i][2][l] - s[i][3][l])
                          + bias[ob * 8 + l];
                if (res)
                    r += res[at + l];
                y[at + l] = relu ? mscg_relu(r) : r;
            }
        }
}

#endif

#ifdef MSCG_VECTOR
/* NP (<= 6) tiles x the 16 output channels of a pair of blocks: 12 accumulators over the K input channels; v: the
 * tiles' rows (ldv apart), u: K rows of 16, m: the tiles' output rows (ldm apart). */
static inline __attribute__((always_inline)) void mscg_wg_tile(const int NP, int K, const float *v, long ldv,
                                                               const float *u, float *m, long ldm)
{
    mscg_v8 a0[6], a1[6];
    int j, c;
    for (j = 0; j < 6; j++)
        a0[j] = a1[j] = MSCG_SPLAT(0.0f);
#pragma GCC unroll 1
    for (c = 0; c < K; c++) {
        const mscg_v8 wa = *(const mscg_v8 *)(u + 16 * c), wb = *(const mscg_v8 *)(u + 16 * c + 8);
#pragma GCC unroll 6
        for (j = 0; j < 6; j++)
            if (j < NP) {
                const float e = v[j * ldv + c];
                const mscg_v8 s = {e, e, e, e, e, e, e, e};
                a0[j] += s * wa;
                a1[j] += s * wb;
            }
    }
#pragma GCC unroll 6
    for (j = 0; j < 6; j++)
        if (j < NP) {
            *(mscg_v8 *)(m + j * ldm) = a0[j];
            *(mscg_v8 *)(m + j * ldm + 8) = a1[j];
        }
}

#define MSCG_WG_CALL(np) mscg_wg_tile(np, IC, vp + (long)t * IC, IC, up, mp + (long)t * OC + ob * 8, OC)
#endif

/* y = conv3x3(x, stride 1, padding 1) + bias (+ res) [then ReLU], all blocked (border B >= 1), H and W even; the
 * weight transformed and packed by the generator as [16][OCB/2][ICB*8][16] (U of each position of the 4x4
 * transform, each pair of output blocks' 16 channels for each input channel), the bias padded to OCB*8; scratch:
 * MSCG_WG_SCRATCH(ICB, OCB) floats. The output's border is zeroed. */
MSCG_FN void mscg_conv3x3_winograd(const float *x, int N, int ICB, int H, int W, const float *u, const float *bias,
                                   int OCB, int B, float *y, int relu, const float *res, float *scratch)
{
    const int PW = W + 2 * B, OPH = H + 2 * B, IC = ICB * 8, OC = OCB * 8, TW = W / 2, NT = H / 2 * TW;
    const long icb_stride = (long)(H + 2 * B) * PW * 8, y_block = (long)OPH * PW * 8;
    const int T = MSCG_WG_TILES;
    float *v = scratch, *m = scratch + 16L * T * IC;
    int n, t0, t, p, ob;
    for (n = 0; n < N; n++) {
        const float *xn = x + (long)n * ICB * icb_stride;
        float *yn = y + (long)n * OCB * y_block;
        const float *rn = res ? res + (long)n * OCB * y_block : 0;
        for (t0 = 0; t0 < NT; t0 += T) {
            const int nt = NT - t0 < T ? NT - t0 : T;
            for (t = 0; t < nt; t++)
                mscg_wg_input(xn, ICB, icb_stride, PW, B, (t0 + t) / TW, (t0 + t) % TW, v, T, t);
            for (p = 0; p < 16; p++) {
                const float *vp = v + (long)p * T * IC;
                float *mp = m + (long)p * T * OC;
                for (ob = 0; ob < OCB; ob += 2) {
                    const float *up = u + ((long)p * (OCB / 2) + ob / 2) * IC * 16;
#ifdef MSCG_VECTOR
                    for (t = 0; t < nt; t += 6)
                        MSCG_BY_WIDTH(nt - t < 6 ? nt - t : 6, MSCG_WG_CALL);
#else
                    int c, k;
                    for (t = 0; t < nt; t++)
                        for (k = 0; k < 16; k++) {
                            float acc = 0.0f;
                            for (c = 0; c < IC; c++)
                                acc += vp[(long)t * IC + c] * up[16 * c + k];
                            mp[(long)t * OC + ob * 8 + k] = acc;
                        }
#endif
                }
                (void)mp;
            }
            for (t = 0; t < nt; t++)
                for (ob = 0; ob < OCB; ob++)
                    mscg_wg_output(m, T, t, OC, ob, bias, rn, yn, y_block, PW, B, (t0 + t) / TW, (t0 + t) % TW,
                                   relu);
        }
        mscg_blocked_border(yn, OCB, OPH, PW, B);
    }
}
