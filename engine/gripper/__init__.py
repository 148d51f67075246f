"""gripper."""
