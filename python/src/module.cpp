// upsample._C: the Python bindings (pybind11 on top of libtorch_python). Loading the module also
// registers the upsample:: operators (library.cpp). The public Python API is
// python/upsample/__init__.py, which applies F.interpolate's argument rules and calls resample()
// or resample_numpy() here.
#include <Python.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aten_kernels.hpp"
#include "bridge.hpp"
#include "library.hpp"
#include "resample.hpp"

namespace py = pybind11;

namespace upsample::torch_ext {
namespace {

constexpr const char* kWhat = "upsample.interpolate";

std::string describe_object(py::handle item) {
  return std::string(py::repr(item)) + " (" + Py_TYPE(item.ptr())->tp_name + ")";
}

// One element of `size`: what PyTorch's argument parser accepts as an int (Python ints,
// NumPy integers, one-element integer tensors; not bool, float or None).
int64_t to_int(py::handle item, const char* arg, size_t index) {
  PyObject* o = item.ptr();
  if (!PyBool_Check(o) && !PyFloat_Check(o) && (PyLong_Check(o) || PyIndex_Check(o))) {
    PyObject* as_int = PyNumber_Index(o);
    if (as_int != nullptr) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
      Py_DECREF(as_int);
      if (overflow == 0 && !(v == -1 && PyErr_Occurred())) return v;
    }
    PyErr_Clear();
  }
  throw py::type_error(std::string(kWhat) + ": " + arg + " must hold ints, got element " +
                       std::to_string(index) + " = " + describe_object(item));
}

// One element of `scale_factor`: Python floats and ints (bool included), NumPy numbers; not
// tensors, strings or None (PyTorch's argument parser rejects those too).
double to_float(py::handle item, const char* arg, size_t index) {
  static const py::handle numpy_number =
      py::object(py::module_::import("numpy").attr("number")).release();
  PyObject* o = item.ptr();
  if (PyFloat_Check(o) || PyLong_Check(o) || PyObject_IsInstance(o, numpy_number.ptr()) == 1) {
    const double v = PyFloat_AsDouble(o);
    if (!(v == -1.0 && PyErr_Occurred())) return v;
    PyErr_Clear();
  }
  throw py::type_error(std::string(kWhat) + ": " + arg + " must hold floats, got element " +
                       std::to_string(index) + " = " + describe_object(item));
}

template <typename T, typename Convert>
std::optional<std::vector<T>> to_vector(py::handle seq, const char* arg, Convert convert) {
  if (seq.is_none()) return std::nullopt;
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) {
    throw py::type_error(std::string(kWhat) + ": " + arg + " must be a list or tuple, got " +
                         describe_object(seq));
  }
  const py::sequence s = py::reinterpret_borrow<py::sequence>(seq);
  std::vector<T> values;
  values.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) values.push_back(convert(s[i], arg, i));
  return values;
}

// align_corners: a bool, or None (the modes without it).
bool to_bool(py::handle value, const char* arg) {
  if (value.is_none()) return false;
  if (!PyBool_Check(value.ptr())) {
    throw py::type_error(std::string(kWhat) + ": " + arg + " must be a bool, got " +
                         describe_object(value));
  }
  return value.ptr() == Py_True;
}

// The resolved call of upsample.interpolate on a tensor (any dtype and layout; autograd, tracing
// and TorchScript see the upsample::resample operator).
py::object resample(py::handle input, py::handle output_size, py::handle scale_factors,
                    const std::string& mode, py::handle align_corners, bool antialias) {
  if (!THPVariable_Check(input.ptr())) {
    throw py::type_error(std::string(kWhat) + ": input must be a torch.Tensor or a " +
                         "numpy.ndarray, got " + Py_TYPE(input.ptr())->tp_name);
  }
  const at::Tensor& tensor = THPVariable_Unpack(input.ptr());
  const std::optional<std::vector<int64_t>> size = to_vector<int64_t>(output_size, "size", to_int);
  const std::optional<std::vector<double>> scales =
      to_vector<double>(scale_factors, "scale_factor", to_float);
  const bool align = to_bool(align_corners, "align_corners");
  at::Tensor result;
  {
    py::gil_scoped_release no_gil;
    result =
        call_resample(tensor, size ? at::OptionalIntArrayRef(*size) : at::OptionalIntArrayRef(),
                      scales ? c10::optional<at::ArrayRef<double>>(*scales) : c10::nullopt, mode,
                      align, antialias);
  }
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(std::move(result)));
}

std::optional<DType> numpy_dtype(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'f' && size == 2) return DType::kFloat16;
  if (kind == 'f' && size == 4) return DType::kFloat32;
  if (kind == 'f' && size == 8) return DType::kFloat64;
  if (kind == 'u' && size == 1) return DType::kUInt8;
  if (kind == 'u' && size == 2) return DType::kUInt16;
  return std::nullopt;
}

// Channels-last when the channel dim of a 4-D / 5-D array has the smallest stride of all dims
// longer than 1 (an NHWC / NDHWC buffer viewed as NCHW / NCDHW).
bool channels_last_like(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t rank = sizes.size();
  if ((rank != 4 && rank != 5) || sizes[1] <= 1) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (d != 1 && sizes[d] > 1 && std::llabs(strides[d]) <= std::llabs(strides[1])) return false;
  }
  return true;
}

// upsample.interpolate on a NumPy array: read in place through its strides (any, negative
// included), the result a new array in the input's layout (channels-last kept).
py::array resample_numpy(const py::array& input, py::handle output_size, py::handle scale_factors,
                         const std::string& mode, py::handle align_corners, bool antialias) {
  const py::dtype dt = input.dtype();
  const std::optional<DType> dtype = numpy_dtype(dt);
  TORCH_CHECK(dtype.has_value(), kWhat, ": NumPy dtype ",
              std::string(py::str(static_cast<const py::handle&>(dt))),
              " is not supported (float16, float32, float64, uint8, uint16)");
  const int64_t item = dt.itemsize();
  const size_t rank = static_cast<size_t>(input.ndim());
  std::vector<int64_t> sizes(rank), strides(rank);
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = input.shape(d);
    TORCH_CHECK(input.strides(d) % item == 0, kWhat, ": stride ", input.strides(d), " of dim ", d,
                " is not a multiple of the item size ", item);
    strides[d] = input.strides(d) / item;
  }
  const std::optional<std::vector<int64_t>> size = to_vector<int64_t>(output_size, "size", to_int);
  const std::optional<std::vector<double>> scales =
      to_vector<double>(scale_factors, "scale_factor", to_float);
  const c10::optional<at::ArrayRef<double>> scale_ref =
      scales ? c10::optional<at::ArrayRef<double>>(*scales) : c10::nullopt;
  const Request request = make_request(kWhat, mode, static_cast<int64_t>(rank), scale_ref,
                                       to_bool(align_corners, "align_corners"), antialias);
  const std::vector<int64_t> out_spatial = output_spatial_size(
      kWhat, sizes, request.rank, size ? at::OptionalIntArrayRef(*size) : at::OptionalIntArrayRef(),
      scale_ref);
  check_sizes(kWhat, sizes, out_spatial, request);

  std::vector<int64_t> out_sizes{sizes[0], sizes[1]};
  out_sizes.insert(out_sizes.end(), out_spatial.begin(), out_spatial.end());
  // Dense strides in NCHW order, or with C innermost for channels-last inputs.
  std::vector<size_t> order(rank);  // dims from outermost to innermost
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  if (channels_last_like(sizes, strides)) {
    order.erase(order.begin() + 1);
    order.push_back(1);
  }
  std::vector<int64_t> out_strides(rank);
  int64_t step = 1;
  for (size_t i = rank; i-- > 0;) {
    out_strides[order[i]] = step;
    step *= std::max<int64_t>(out_sizes[order[i]], 1);
  }
  std::vector<py::ssize_t> shape_bytes(out_sizes.begin(), out_sizes.end());
  std::vector<py::ssize_t> stride_bytes(rank);
  for (size_t d = 0; d < rank; ++d) stride_bytes[d] = out_strides[d] * item;
  py::array output(dt, shape_bytes, stride_bytes);
  const TensorDesc src = describe(*dtype, sizes, strides);
  const TensorDesc dst = describe(*dtype, out_sizes, out_strides);
  {
    py::gil_scoped_release no_gil;
    run(kWhat, forward_request(request, sizes, strides, out_spatial).op(Direction::kForward), src,
        input.data(), dst, output.mutable_data());
  }
  return output;
}

}  // namespace
}  // namespace upsample::torch_ext

PYBIND11_MODULE(_C, m) {
  namespace ext = upsample::torch_ext;
  m.doc() = "upsample's PyTorch bindings (see upsample/__init__.py for the public API)";
  m.def("resample", &ext::resample, py::arg("input"), py::arg("output_size"),
        py::arg("scale_factors"), py::arg("mode"), py::arg("align_corners"), py::arg("antialias"),
        "upsample.interpolate on a tensor after F.interpolate's argument rules: output_size "
        "(list of ints) or scale_factors (list of floats, also passed to the kernel).");
  m.def("resample_numpy", &ext::resample_numpy, py::arg("input"), py::arg("output_size"),
        py::arg("scale_factors"), py::arg("mode"), py::arg("align_corners"), py::arg("antialias"),
        "upsample.interpolate on a NumPy array (forward only).");
  m.def("install", &ext::install_aten_kernels,
        "Registers the engine as the CPU kernels of the aten upsample operators. Returns False "
        "when already installed.");
  m.def("uninstall", &ext::uninstall_aten_kernels,
        "Removes the registrations of install(). Returns False when not installed.");
  m.def("is_installed", &ext::aten_kernels_installed);
  m.def("installed_kernel_names", &ext::aten_kernel_names);
  m.def("set_num_threads", &ext::set_num_threads, py::arg("n"));
  m.def("get_num_threads", &ext::num_threads);
  m.def("explicit_num_threads", &ext::explicit_num_threads);
  m.def("plan_cache_stats", [] {
    const ext::PlanCacheStats s = ext::plan_cache_stats();
    py::dict d;
    d["size"] = s.size;
    d["capacity"] = s.capacity;
    d["hits"] = s.hits;
    d["misses"] = s.misses;
    return d;
  });
  m.def("clear_plan_cache", &ext::clear_plan_cache);
}
