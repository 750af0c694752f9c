export { loadSharp } from './sharp.js';
export { sniffImageType, type ImageType } from './image-type.js';
export { readUploadedImage, type UploadedImage } from './uploaded-image.js';
