"""The built-in scenarios: ``demo/`` (the demo's scenario, its dumps and the words on its
screens) and the script that lays those words out into the dumps (:mod:`.build_demo`)."""
