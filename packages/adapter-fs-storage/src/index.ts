// This package is filled by its own issue; it exists so the workspace has its final shape.
export {};
