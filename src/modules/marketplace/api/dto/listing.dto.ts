import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsNumber, IsString, Max, MaxLength, Min, MinLength, ValidateBy } from 'class-validator';
import { Present, Trim, TrimEach } from '../../../../platform/http/index.js';
import {
  CURRENCIES, DESCRIPTION_MAX, isPreviewUrl, LICENSE_TYPES, PREVIEW_IMAGES_MAX, PRICE_MAX, SELLER_STATUSES, TITLE_MAX,
  type Currency, type LicenseType, type ListingEdit, type ListingInput, type SellerStatus,
} from '../../domain/listing.js';

const IsPreviewUrl = () =>
  ValidateBy({
    name: 'isPreviewUrl',
    validator: { validate: (v) => isPreviewUrl(v), defaultMessage: () => 'each preview image must be an http or https URL' },
  }, { each: true });
/** More than 0, at most 1,000,000, at most two decimals. */
const Price = () => (target: object, key: string | symbol) => {
  IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 2 }, { message: 'price must be a number with at most two decimals' })(target, key);
  Min(0.01, { message: 'price must be greater than 0' })(target, key);
  Max(PRICE_MAX, { message: `price must be at most ${PRICE_MAX}` })(target, key);
};

/** The fields create and update share; on update every one of them is optional. */
class ListingFieldsDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: TITLE_MAX, description: "Defaults to the character's name." })
  @Present() @Trim() @IsString() @MinLength(1) @MaxLength(TITLE_MAX)
  title?: string;

  @ApiPropertyOptional({ enum: SELLER_STATUSES, default: 'active', description: '`sold` and `removed` are set by the system only.' })
  @Present() @IsIn(SELLER_STATUSES, { message: `status must be one of: ${SELLER_STATUSES.join(', ')}` })
  status?: SellerStatus;

  @ApiPropertyOptional({ type: [String], maxItems: PREVIEW_IMAGES_MAX, description: "http(s) image URLs; without any, the template's own images are shown." })
  @Present() @TrimEach() @IsArray() @ArrayMaxSize(PREVIEW_IMAGES_MAX) @IsPreviewUrl()
  preview_images?: string[];

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX })
  @Present() @Trim() @IsString() @MaxLength(DESCRIPTION_MAX)
  description?: string;
}

export class CreateListingDto extends ListingFieldsDto {
  @ApiProperty({ example: 'char_01HZX6FQJ5N6E7T2M3A4B5C6D7', description: 'A character of your workspace; its data is frozen into the listing.' })
  @IsString() @MaxLength(64)
  character_id!: string;

  @ApiProperty({ example: 9.99, minimum: 0.01, maximum: PRICE_MAX, description: 'In `currency`; at most two decimals.' })
  @Price()
  price!: number;

  @ApiProperty({ enum: CURRENCIES, example: 'USD', description: 'credits, or USD (10 credits), EUR (11), GBP (13) per unit.' })
  @IsIn(CURRENCIES, { message: `currency must be one of: ${CURRENCIES.join(', ')}` })
  currency!: Currency;

  @ApiProperty({ enum: LICENSE_TYPES, example: 'personal', description: 'An exclusive licence sells once.' })
  @IsIn(LICENSE_TYPES, { message: `license_type must be one of: ${LICENSE_TYPES.join(', ')}` })
  license_type!: LicenseType;
}

/** PUT: any of the create fields but the character; the template is frozen again from the character. */
export class UpdateListingDto extends ListingFieldsDto {
  @ApiPropertyOptional({ example: 12.5, minimum: 0.01, maximum: PRICE_MAX })
  @Present() @Price()
  price?: number;

  @ApiPropertyOptional({ enum: CURRENCIES })
  @Present() @IsIn(CURRENCIES, { message: `currency must be one of: ${CURRENCIES.join(', ')}` })
  currency?: Currency;

  @ApiPropertyOptional({ enum: LICENSE_TYPES })
  @Present() @IsIn(LICENSE_TYPES, { message: `license_type must be one of: ${LICENSE_TYPES.join(', ')}` })
  license_type?: LicenseType;
}

export function toListingInput(dto: CreateListingDto): ListingInput {
  return {
    characterId: dto.character_id,
    title: dto.title,
    price: dto.price,
    currency: dto.currency,
    licenseType: dto.license_type,
    status: dto.status ?? 'active',
    previewImages: dto.preview_images ?? [],
    description: dto.description ?? '',
  };
}

export function toListingEdit(dto: UpdateListingDto): ListingEdit {
  return {
    title: dto.title,
    price: dto.price,
    currency: dto.currency,
    licenseType: dto.license_type,
    status: dto.status,
    previewImages: dto.preview_images,
    description: dto.description,
  };
}
