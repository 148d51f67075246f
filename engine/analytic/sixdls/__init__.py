"""6DLS: 6-D limit surfaces of nonplanar frictional surface contacts (Xu et al., T-RO 2021).

Re-implemented from the paper's equations (the authors' MATLAB code is CC BY-NC and is not
used). Modules: surfaces/pressure/mesh (contact profiles), elements (element arrays and the
contact frame), friction (Eq. 4-7, Appendix B), twists (Appendix D), normalize (Eq. 9),
ellipsoid/quartic/polynomials (Eq. 10-13), linearize (Eq. 14-16), gws (Eq. 17-19), variants
(Table IV) and model (the pipeline entry point `sixdls_margin`).
"""

from engine.analytic.sixdls.model import sixdls_margin
from engine.analytic.sixdls.variants import VARIANTS

__all__ = ["VARIANTS", "sixdls_margin"]
