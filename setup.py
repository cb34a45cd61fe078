"""Build of the compiled query path (``fingerprint.compiled``): Cython extensions compiled with
the machine's C compiler by ``pip install`` (``make install``). A failed build fails the
install: the engine has no slower twin to fall back on."""

from Cython.Build import cythonize
from setuptools import Extension, setup

EXTENSIONS = [
    Extension(f"fingerprint.compiled.{name}", [f"fingerprint/compiled/{name}.pyx"],
              extra_compile_args=["-O3"])
    for name in ("align", "judge", "keys", "letters", "lookup", "rewrite")
]

setup(ext_modules=cythonize(EXTENSIONS, compiler_directives={"language_level": "3"}))
