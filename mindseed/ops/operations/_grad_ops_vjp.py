"""Backward kernels of MindSpore's generated ops whose closed form is the vector-Jacobian product of a forward op
mindseed already differentiates (`ops.auto_generate.GridSampler2DGrad`, `ResizeNearestNeighborGrad`, ...), and
LayerNorm's gradient and second-order gradient written out. Each takes the forward op's inputs and the incoming
gradient in MindSpore's argument order and is differentiable in turn."""
from mindseed.common import dtype as mstype
from mindseed.common.tensor import Tensor
from mindseed.ops import functional as F
from mindseed.ops.functional._deform import deformable_offsets
from mindseed.ops.operations._base import Primitive

__all__ = ["GridSampler2DGrad", "GridSampler3DGrad", "ResizeNearestNeighborGrad", "ResizeNearestNeighborV2Grad",
           "LayerNormGrad", "LayerNormGradGrad", "CdistGrad", "ROIAlignGrad",
           "DeformableOffsetsGrad"]


def _vjp(fn, primals, cotangent):
    from mindseed.ops import vjp  # noqa: PLC0415 -- autodiff sits above the operation classes
    return vjp(fn, *primals)[1](cotangent)


def _tensors(op, ndim=None, **named):
    for name, x in named.items():
        if not isinstance(x, Tensor) or not mstype.is_float(x.dtype):
            got = x.dtype if isinstance(x, Tensor) else type(x).__name__
            raise TypeError(f"For '{op}', '{name}' must be a float Tensor, but got {got}.")
        if ndim is not None and x.ndim != ndim:
            raise ValueError(f"For '{op}', '{name}' must be a {ndim}-D Tensor, but got shape {x.shape}.")


class _GridSamplerGrad(Primitive):
    _NDIM = 4

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros", align_corners=False, output_mask=(1, 1)):
        super().__init__(type(self).__name__)
        if interpolation_mode not in ("bilinear", "nearest", "bicubic"):
            raise ValueError(f"For '{self.name}', 'interpolation_mode' must be 'bilinear', 'nearest' or 'bicubic', "
                             f"but got {interpolation_mode!r}.")
        if padding_mode not in ("zeros", "border", "reflection"):
            raise ValueError(f"For '{self.name}', 'padding_mode' must be 'zeros', 'border' or 'reflection', but got "
                             f"{padding_mode!r}.")
        self.interpolation_mode, self.padding_mode = interpolation_mode, padding_mode
        self.align_corners, self.output_mask = bool(align_corners), tuple(output_mask)
        self.add_prim_attr("interpolation_mode", interpolation_mode)
        self.add_prim_attr("padding_mode", padding_mode)
        self.add_prim_attr("align_corners", self.align_corners)

    def __call__(self, grad, input_x, grid):
        _tensors(self.name, self._NDIM, grad=grad, input_x=input_x, grid=grid)
        want = (input_x.shape[0], input_x.shape[1]) + tuple(grid.shape[1:-1])
        if tuple(grad.shape) != want:
            raise ValueError(f"For '{self.name}', 'grad' must have the forward output's shape {want}, but got "
                             f"{grad.shape}.")

        def forward(x, g):
            return F.grid_sample(x, g, self.interpolation_mode, self.padding_mode, self.align_corners)
        return tuple(_vjp(forward, (input_x, grid), grad))


class GridSampler2DGrad(_GridSamplerGrad):
    """`GridSampler2DGrad(interpolation_mode, padding_mode, align_corners)(grad, input_x, grid)`: the gradients
    (dx, dgrid) of `grid_sample` on (N, C, H, W) inputs and (N, H', W', 2) grids."""


class GridSampler3DGrad(_GridSamplerGrad):
    """`GridSampler3DGrad(...)(grad, input_x, grid)`: as GridSampler2DGrad on (N, C, D, H, W) inputs."""

    _NDIM = 5


class ResizeNearestNeighborGrad(Primitive):
    """`ResizeNearestNeighborGrad(align_corners=False)(grads, size)`: the gradient of nearest-neighbour resizing
    from spatial `size` to the spatial shape of `grads` (N, C, H', W'): each output gradient added to its source."""

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__(type(self).__name__)
        self.align_corners, self.half_pixel_centers = bool(align_corners), bool(half_pixel_centers)
        self.add_prim_attr("align_corners", self.align_corners)
        self.add_prim_attr("half_pixel_centers", self.half_pixel_centers)

    def __call__(self, grads, size):
        if isinstance(grads, Tensor) and mstype.is_integral(grads.dtype) and grads.dtype != mstype.bool_:
            # MindSpore's kernel sums integer gradients too: exactly, in float64
            return F.cast(self(F.cast(grads, mstype.float64), size), grads.dtype)
        _tensors(self.name, 4, grads=grads)
        if isinstance(size, Tensor):
            size = tuple(int(v) for v in size.asnumpy().reshape(-1))
        if not isinstance(size, (tuple, list)) or len(size) != 2 or any(
                isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in size):
            raise ValueError(f"For '{self.name}', 'size' must be two positive ints (H, W), but got {size}.")
        from mindseed.ops import operations as P  # noqa: PLC0415 -- the forward class of the same layer
        resize = P.ResizeNearestNeighborV2(self.align_corners, self.half_pixel_centers)
        out_size = Tensor(list(grads.shape[2:]), mstype.int32)
        x = F.zeros(tuple(grads.shape[:2]) + tuple(size), grads.dtype)
        return _vjp(lambda v: resize(v, out_size), (x,), grads)[0]


class ResizeNearestNeighborV2Grad(ResizeNearestNeighborGrad):
    """`ResizeNearestNeighborV2Grad(align_corners=False, half_pixel_centers=False)(grads, size)`."""


def _norm_axes(op, x, begin_norm_axis, begin_params_axis):
    nd = x.ndim
    b, p = begin_norm_axis % nd if nd else 0, begin_params_axis % nd if nd else 0
    if not -nd <= begin_norm_axis < nd or not -nd <= begin_params_axis < nd:
        raise ValueError(f"For '{op}', 'begin_norm_axis' and 'begin_params_axis' must be in [{-nd}, {nd}), but got "
                         f"{begin_norm_axis} and {begin_params_axis}.")
    return tuple(range(b, nd)), tuple(range(p)), tuple(x.shape[p:])


class LayerNormGrad(Primitive):
    """`LayerNormGrad(begin_norm_axis=1, begin_params_axis=1, epsilon=1e-12)(x, dy, variance, mean, gamma)`:
    (dx, dgamma, dbeta) of y = gamma (x - mean) / sqrt(variance + epsilon) + beta, with the saved statistics."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-12):
        super().__init__(type(self).__name__)
        for name, v in (("begin_norm_axis", begin_norm_axis), ("begin_params_axis", begin_params_axis)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For '{self.name}', '{name}' must be an int, but got {type(v).__name__}.")
            self.add_prim_attr(name, v)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = begin_norm_axis, begin_params_axis, epsilon

    def _grads(self, x, dy, variance, mean, gamma):
        norm, batch, pshape = _norm_axes(self.name, x, self.begin_norm_axis, self.begin_params_axis)
        rstd = F.rsqrt(variance + self.epsilon)
        xhat = (x - mean) * rstd
        # begin_params_axis 0: no dimension to sum over (an empty axis tuple would sum over all of them)
        dgamma = F.reshape(F.sum(dy * xhat, batch) if batch else dy * xhat, pshape)
        dbeta = F.reshape(F.sum(dy, batch) if batch else dy, pshape)
        # MindSpore's kernel: the gradients through the variance and the mean as given (they need not be the
        # statistics of x), dx = a rstd + dvar 2 (x - mean) / n + dmean / n with a = dy gamma
        n = 1
        for d in norm:
            n *= x.shape[d]
        a, centered = dy * gamma, x - mean
        dvar = F.sum(a * centered, norm, keepdim=True) * (-0.5) * rstd * rstd * rstd
        dmean = F.sum(a, norm, keepdim=True) * (-rstd) + dvar * F.sum(centered * -2.0, norm, keepdim=True) / n
        dx = a * rstd + dvar * 2.0 * centered / n + dmean / n
        return dx, dgamma, dbeta

    def __call__(self, x, dy, variance, mean, gamma):
        _tensors(self.name, x=x, dy=dy, variance=variance, mean=mean, gamma=gamma)
        if tuple(dy.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'dy' must have the shape of 'x' {x.shape}, but got {dy.shape}.")
        return self._grads(x, dy, variance, mean, gamma)


class LayerNormGradGrad(LayerNormGrad):
    """`LayerNormGradGrad(begin_norm_axis=1, begin_params_axis=1)(x, dy, variance, mean, gamma, d_dx, d_dg, d_db)`:
    the gradients (d x, d dy, d gamma) of LayerNormGrad's outputs (dx, dgamma, dbeta) weighted by (d_dx, d_dg,
    d_db). The saved mean and variance give the values; their dependence on x is differentiated as in LayerNorm."""

    def __call__(self, x, dy, variance, mean, gamma, d_dx, d_dg, d_db):
        _tensors(self.name, x=x, dy=dy, variance=variance, mean=mean, gamma=gamma, d_dx=d_dx, d_dg=d_dg, d_db=d_db)
        norm, _, _ = _norm_axes(self.name, x, self.begin_norm_axis, self.begin_params_axis)

        def grads(xv, dyv, g):
            m = F.mean(xv, norm, keep_dims=True)
            v = F.mean((xv - m) * (xv - m), norm, keep_dims=True)
            # the saved statistics' values, with the derivative of the statistics of xv
            m_eff = mean + (m - F.stop_gradient(m))
            v_eff = variance + (v - F.stop_gradient(v))
            return self._grads(xv, dyv, v_eff, m_eff, g)
        return tuple(_vjp(grads, (x, dy, gamma), (d_dx, d_dg, d_db)))


class CdistGrad(Primitive):
    """`CdistGrad(p)(grad, x1, x2, dist)`: the gradient of `cdist(x1, x2, p)` with respect to x1, given the
    forward distances `dist` (B, P, R) and their incoming gradient: for each pair, grad * d|x1 - x2|_p / dx1 =
    grad * sign(diff) * |diff|^(p-1) / dist^(p-1) (p = 1: grad * sign(diff); p = inf: grad * sign(diff) where
    |diff| is the largest; p = 0: zeros), 0 where dist is 0."""

    def __init__(self, p=2.0):
        super().__init__("CdistGrad")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
            raise ValueError(f"For 'CdistGrad', 'p' must be a non-negative float, but got {p!r}.")
        self.p = float(p)
        self.add_prim_attr("p", self.p)

    def __call__(self, grad, x1, x2, dist):
        _tensors(self.name, grad=grad, x1=x1, x2=x2, dist=dist)
        if x1.ndim < 2 or x2.ndim != x1.ndim or x1.shape[-1] != x2.shape[-1]:
            raise ValueError(f"For 'CdistGrad', 'x1' and 'x2' must have the same rank (at least 2) and last dim, "
                             f"but got shapes {x1.shape} and {x2.shape}.")
        want = tuple(x1.shape[:-1]) + (x2.shape[-2],)
        if tuple(grad.shape) != want or tuple(dist.shape) != want:
            raise ValueError(f"For 'CdistGrad', 'grad' and 'dist' must have shape {want}, but got {grad.shape} and "
                             f"{dist.shape}.")
        diff = F.expand_dims(x1, -2) - F.expand_dims(x2, -3)          # (..., P, R, M)
        g, d = F.expand_dims(grad, -1), F.expand_dims(dist, -1)
        p = self.p
        if p == 0.0:
            return F.zeros_like(x1)
        if p == 1.0:
            pair = F.sign(diff) * g
        elif p == float("inf"):
            a = F.abs(diff)
            pair = F.sign(diff) * F.cast(a == F.amax(a, -1, True), x1.dtype) * g
        else:
            safe = F.select(d == 0, F.ones_like(d), d)
            pair = F.sign(diff) * F.pow(F.abs(diff), p - 1) / F.pow(safe, p - 1) * g
            pair = F.select(F.broadcast_to(d == 0, pair.shape), F.zeros_like(pair), pair)
        return pair.sum(-2)


class ROIAlignGrad(Primitive):
    """`ROIAlignGrad(pooled_height, pooled_width, spatial_scale, sample_num=2)(dy, rois, xdiff_shape)`: the gradient
    of ROIAlign (same attributes) for its features of shape `xdiff_shape`: each pooled gradient spread over the
    bilinear samples it averaged."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2):
        super().__init__("ROIAlignGrad")
        self.pooled_height, self.pooled_width = pooled_height, pooled_width
        self.spatial_scale, self.sample_num = spatial_scale, sample_num
        for name in ("pooled_height", "pooled_width", "spatial_scale", "sample_num"):
            self.add_prim_attr(name, getattr(self, name))

    def __call__(self, dy, rois, xdiff_shape):
        _tensors(self.name, 4, dy=dy)
        _tensors(self.name, 2, rois=rois)
        if isinstance(xdiff_shape, Tensor):
            xdiff_shape = tuple(int(v) for v in xdiff_shape.asnumpy().reshape(-1))
        if not isinstance(xdiff_shape, (tuple, list)) or len(xdiff_shape) != 4:
            raise ValueError(f"For '{self.name}', 'xdiff_shape' must be the 4 dims (N, C, H, W) of the features, but "
                             f"got {xdiff_shape}.")
        from mindseed.ops import operations as P  # noqa: PLC0415 -- the forward class of the same layer
        roi_align = P.ROIAlign(self.pooled_height, self.pooled_width, self.spatial_scale, self.sample_num)
        x = F.zeros(tuple(xdiff_shape), dy.dtype)
        return _vjp(lambda v: roi_align(v, rois), (x,), dy)[0]


class DeformableOffsetsGrad(Primitive):
    """`DeformableOffsetsGrad(strides, pads, kernel_size, dilations=(1, 1, 1, 1), data_format='NCHW',
    deformable_groups=1, modulated=True)(out_backprop, input, offsets)`: (d input, d offsets), the gradient of
    DeformableOffsets with the same attributes."""

    def __init__(self, strides, pads, kernel_size, dilations=(1, 1, 1, 1), data_format="NCHW", deformable_groups=1,
                 modulated=True):
        super().__init__("DeformableOffsetsGrad")
        self.strides, self.pads, self.kernel_size, self.dilations = strides, pads, kernel_size, dilations
        self.data_format, self.deformable_groups, self.modulated = data_format, deformable_groups, modulated
        for name in ("strides", "pads", "dilations", "data_format", "deformable_groups", "modulated"):
            self.add_prim_attr(name, getattr(self, name))
        self.add_prim_attr("ksize", kernel_size)
        self.init_prim_io_names(inputs=["out_backprop", "input", "offsets"], outputs=["out_grad"])

    def __call__(self, out_backprop, input, offsets):  # noqa: A002 -- MindSpore's argument name
        _tensors(self.name, 4, out_backprop=out_backprop, input=input, offsets=offsets)
        if self.data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{self.name}', the 'data_format' must be 'NCHW' or 'NHWC', but got "
                             f"{self.data_format!r}.")
        nhwc = self.data_format == "NHWC"
        if nhwc:   # the kernel's NHWC layout: computed in NCHW, the gradients given back in NHWC
            out_backprop, input, offsets = (F.transpose(t, (0, 3, 1, 2)) for t in (out_backprop, input, offsets))
        strides, dilations = (tuple(v[i] for i in (0, 3, 1, 2)) if nhwc else v for v in (self.strides, self.dilations))

        def forward(x, off):
            # as MindSpore's kernel: the output positions are those of the offsets given
            return deformable_offsets(x, off, strides, self.pads, self.kernel_size, dilations, "NCHW",
                                      self.deformable_groups, self.modulated, out_of_offsets=True)
        half = input.dtype == mstype.float16
        if half:   # MindSpore's kernel accumulates float16 in float32
            out_backprop, input, offsets = (F.cast(t, mstype.float32) for t in (out_backprop, input, offsets))
        dx, doff = _vjp(forward, (input, offsets), out_backprop)
        if half:
            dx, doff = F.cast(dx, mstype.float16), F.cast(doff, mstype.float16)
        if nhwc:
            dx, doff = F.transpose(dx, (0, 2, 3, 1)), F.transpose(doff, (0, 2, 3, 1))
        return dx, doff
