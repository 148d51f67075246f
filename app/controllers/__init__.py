"""Controllers: each turns user actions into model changes (and worker requests).

editing   grasp, parameters, stable pose, gizmo; undo/redo
opening   mesh files, sessions, the example, drag and drop, recent files
runs      Simulate / Cancel and the frames and results streaming back
analysis  grasp checks and the analytic predictions
exports   CSV, VTK series, screenshot, video
sessions  save / save as, confirm-discard and confirm-replace questions
scene     what the 3D view and the timeline show (edit mode or a trial's frames)
"""
