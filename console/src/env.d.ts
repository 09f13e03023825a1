// Vite bundles the stylesheet that main.tsx imports.
declare module "*.css";
