// Inserted by script: async by default, runs after the inserting script.
window.dynamicRan = true;
