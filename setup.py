"""The optional compiled kernel: the two formulas (engine/formulas_kernel.pyx)
and a section rated without a trace (engine/section_kernel.pyx).

Everything else about the package is in pyproject.toml.  The kernel is built
only when asked, ``USCHESS_KERNEL=1 pip install -e .`` (or ``.``): Cython is
then fetched as a build requirement and a C compiler compiles it.  Without
the variable nothing is compiled and the install is pure Python, as it is
where no compiler is; a compile that fails leaves that install too (the
extension is optional), and ``uschess --version`` says which formulas run.
"""

import os

from setuptools import Extension, setup

WANTED = os.environ.get("USCHESS_KERNEL") == "1"

# no fused multiply-add: every operation rounded on its own, as Python does
KERNEL = [Extension(f"uschess.{name}", [f"engine/{name}.pyx"],
                    extra_compile_args=["-O2", "-ffp-contract=off"], optional=True)
          for name in ("formulas_kernel", "section_kernel")]

# setuptools compiles a .pyx through Cython when Cython is installed, which
# asking for it as a build requirement makes sure of
setup(ext_modules=KERNEL if WANTED else [],
      setup_requires=["Cython>=3.0"] if WANTED else [])
