CREATE TABLE "translation_usage" (
	"day" date PRIMARY KEY NOT NULL,
	"characters" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "translation_usage_characters" CHECK ("translation_usage"."characters" >= 0)
);
