"""A MuJoCo rigid-pad dynamic baseline of the IPC simulator's squeeze-lift-hold grasp.

The same object mesh, resting pose and ground, the same pad outline and jaw placement
(engine.gripper), stroke, closing speed and grip force, the same procedure and success test
(engine.grasp.simulation's docstring) and the same seeded trial poses (engine.grasp.trial_plan),
simulated by MuJoCo with rigid pads whose contact stiffness is derived from the pad's material
(engine.mujoco_baseline.contact). `mujoco` is an optional extra (`pip install '.[mujoco]'` from the checkout);
only engine.mujoco_baseline.model and .simulation import it, lazily.
"""
