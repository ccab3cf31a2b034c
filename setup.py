"""The optional compiled kernel: the two formulas (engine/formulas_kernel.pyx),
a section rated without a trace (engine/section_kernel.pyx), the players
of an event file's sections as the reader reads them (engine/reader_kernel.pyx)
and the arithmetic of the audit's solvers (engine/solve_kernel.pyx).

Everything else about the package is in pyproject.toml.  The kernel is built
only when asked, ``USCHESS_KERNEL=1 pip install -e .`` (or ``.``): Cython is
then fetched as a build requirement and a C compiler compiles it.  Without
the variable nothing is compiled and the install is pure Python, as it is
where no compiler is; a compile that fails leaves that install too (the
extension is optional), and ``uschess --version`` says which code runs.
"""

import os

from setuptools import Extension, setup

WANTED = os.environ.get("USCHESS_KERNEL") == "1"

# No fused multiply-add: every operation rounded on its own, as Python does.
# No built-in pow: Python's x ** y calls the C library's pow(), and so must
# the kernel, where the compiler would otherwise turn pow(x, 2.0) into x * x,
# which for about one x in a thousand differs from the library's pow() in
# the last bit (N* of sec. 3 from R0 = 1358.6146862955525 is 14.751514842991787
# through pow(), 14.751514842991785 through x * x).
KERNEL = [Extension(f"uschess.{name}", [f"engine/{name}.pyx"],
                    extra_compile_args=["-O2", "-ffp-contract=off", "-fno-builtin-pow"],
                    optional=True)
          for name in ("formulas_kernel", "section_kernel", "reader_kernel", "solve_kernel")]

# setuptools compiles a .pyx through Cython when Cython is installed, which
# asking for it as a build requirement makes sure of
setup(ext_modules=KERNEL if WANTED else [],
      setup_requires=["Cython>=3.0"] if WANTED else [])
