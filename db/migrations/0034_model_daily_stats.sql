CREATE TABLE "model_daily_stats" (
	"day" date NOT NULL,
	"model_id" text NOT NULL,
	"outcome" text NOT NULL,
	"ttft_bucket" smallint NOT NULL,
	"replies" integer DEFAULT 0 NOT NULL,
	"ttft_ms_total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "model_daily_stats_day_model_id_outcome_ttft_bucket_pk" PRIMARY KEY("day","model_id","outcome","ttft_bucket")
);
